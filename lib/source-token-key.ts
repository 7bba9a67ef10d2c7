import { RemovalPolicy, Stack } from "aws-cdk-lib";
import { AccountRootPrincipal, PolicyDocument, PolicyStatement, type IRole } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { Construct } from "constructs";
import { ENCRYPTION_CONTEXT_KEYS } from "../lambdas/adapters/aws/kms-token-cipher";

/** The two encryption-context keys every token ciphertext is bound to (lambdas/adapters/aws/kms-token-cipher.ts). */
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
 * Key administration, the account's only right in the key policies of this
 * stack: AWS's key-administrator actions (describe, enable/disable, rotate,
 * tag, change the policy, schedule deletion), and no cryptographic use
 * (no Encrypt, Decrypt, GenerateDataKey, ReEncrypt). So the key can never
 * become unmanageable, yet an IAM policy in the account cannot give anyone
 * the use of the key: only the key policy does, by naming the role.
 * kms:Create* includes CreateGrant, so whoever holds key administration in
 * IAM could grant themselves use: keep that right to the operators who rotate
 * keys (docs/operations.md, "Runbook").
 */
export const KEY_ADMIN_ACTIONS = [
  "kms:Create*",
  "kms:Describe*",
  "kms:Enable*",
  "kms:List*",
  "kms:Put*",
  "kms:Update*",
  "kms:Revoke*",
  "kms:Disable*",
  "kms:Get*",
  "kms:Delete*",
  "kms:TagResource",
  "kms:UntagResource",
  "kms:ScheduleKeyDeletion",
  "kms:CancelKeyDeletion",
  "kms:RotateKeyOnDemand",
] as const;

export function keyAdministration(): PolicyDocument {
  return new PolicyDocument({
    statements: [
      new PolicyStatement({ sid: "AccountAdministersTheKey", principals: [new AccountRootPrincipal()], actions: [...KEY_ADMIN_ACTIONS], resources: ["*"] }),
    ],
  });
}

/**
 * The KMS key of the customers' source tokens: symmetric, rotated yearly by
 * KMS, kept when the stack is deleted (without it no stored token can be
 * read). Its key policy gives the account key administration only
 * (keyAdministration) and names the users: Encrypt for the onboarding API (it
 * stores tokens), Decrypt for the two functions that call the source (the
 * page task and the connection test route), each with the encryption-context
 * condition. The same grants are in the roles' IAM policies, so either side
 * read alone tells the truth.
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
      policy: keyAdministration(),
    });
  }

  /** kms:Encrypt of a token, with its workspace and connection as the encryption context. */
  grantEncryptToken(role: IRole): void {
    this.grant(role, "kms:Encrypt");
  }

  /** kms:Decrypt of a token, with its workspace and connection as the encryption context. */
  grantDecryptToken(role: IRole): void {
    this.grant(role, "kms:Decrypt");
  }

  private grant(role: IRole, action: "kms:Encrypt" | "kms:Decrypt"): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [action], resources: [this.key.keyArn], conditions: TOKEN_CONTEXT_CONDITIONS }));
    this.key.addToResourcePolicy(
      new PolicyStatement({ actions: [action], principals: [role], resources: ["*"], conditions: TOKEN_CONTEXT_CONDITIONS }),
    );
  }
}
