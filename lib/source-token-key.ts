import { RemovalPolicy, Stack } from "aws-cdk-lib";
import { PolicyStatement, type IGrantable } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { Construct } from "constructs";
import { ENCRYPTION_CONTEXT_KEYS } from "../lambdas/aws/kms-token-cipher";

/** The two encryption-context keys every token ciphertext is bound to (lambdas/aws/kms-token-cipher.ts). */
export const TOKEN_CONTEXT_KEYS = Object.values(ENCRYPTION_CONTEXT_KEYS);

/**
 * The condition on every use of the key: the request's encryption context
 * has exactly the keys business_account_id and connection_id.
 *
 * - `ForAllValues:StringEquals kms:EncryptionContextKeys [...]` refuses any
 *   other key. Alone it is not enough: ForAllValues is true for an empty
 *   set, so a request with no context at all would pass.
 * - `Null kms:EncryptionContext:<key> = false` requires each key to be
 *   present (with a value).
 *
 * Together: no Encrypt or Decrypt of this key without the token's
 * workspace and connection in the context. The values cannot be tied to the
 * caller here (IAM does not see the JWT); the handlers take them from the
 * session and the stored connection, and KMS then refuses a ciphertext whose
 * context differs from the one it was encrypted with.
 */
export const TOKEN_CONTEXT_CONDITIONS = {
  "ForAllValues:StringEquals": { "kms:EncryptionContextKeys": TOKEN_CONTEXT_KEYS },
  Null: Object.fromEntries(TOKEN_CONTEXT_KEYS.map((key) => [`kms:EncryptionContext:${key}`, "false"])),
};

/**
 * The KMS key of the customers' source tokens: symmetric, rotated yearly by
 * KMS, kept when the stack is deleted (without it no stored token can be
 * read). Its key policy is the default one (the account's IAM decides), and
 * the only IAM grants in this stack are the two below: Encrypt for the
 * onboarding API (it stores tokens), Decrypt for the two functions that call
 * the source (the page task and the connection test route).
 */
export class SourceTokenKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new Key(this, "Key", {
      description: "Encrypts the customers' custom CRM source tokens (encryption context: business_account_id, connection_id)",
      enableKeyRotation: true,
      alias: `alias/${Stack.of(this).stackName}/source-tokens`,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** kms:Encrypt of a token, with its workspace and connection as the encryption context. */
  grantEncryptToken(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(this.statement("kms:Encrypt"));
  }

  /** kms:Decrypt of a token, with its workspace and connection as the encryption context. */
  grantDecryptToken(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(this.statement("kms:Decrypt"));
  }

  private statement(action: "kms:Encrypt" | "kms:Decrypt"): PolicyStatement {
    return new PolicyStatement({ actions: [action], resources: [this.key.keyArn], conditions: TOKEN_CONTEXT_CONDITIONS });
  }
}
