import { RemovalPolicy, Stack } from "aws-cdk-lib";
import { AttributeType, Billing, type CfnGlobalTable, ProjectionType, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import { PolicyStatement, type IRole } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import { Construct } from "constructs";
import { RECORD_TABLE } from "../lambdas/adapters/dynamodb/table/table-definition";
import { keyAdministration } from "./source-token-key";
import type { TableAction } from "./table-access";

/**
 * The TTL attribute (epoch seconds): DynamoDB deletes an item within days of
 * the time it holds, free of write cost. Meant for run summaries past their
 * retention, the rate limiter's slot logs and a deleted connection's data
 * (docs/retention.md says what expires when).
 */
export const TTL_ATTRIBUTE = "expires_at";

/**
 * What DynamoDB asks of the caller's identity on a table encrypted with a
 * customer-managed key, granted only through DynamoDB (kms:ViaService): no
 * function can use the table key directly.
 */
export const TABLE_KEY_ACTIONS = [
  "kms:Encrypt",
  "kms:Decrypt",
  "kms:ReEncryptFrom",
  "kms:ReEncryptTo",
  "kms:GenerateDataKey",
  "kms:GenerateDataKeyWithoutPlaintext",
  "kms:DescribeKey",
  "kms:CreateGrant",
] as const;

/**
 * The canonical record table, built from the same key definition that the
 * tests and the local runtime create on DynamoDB Local, encrypted with its
 * own customer-managed key (so key use is in CloudTrail and the key policy
 * names who may read the table), with a TTL attribute.
 */
export class RecordTable extends Construct {
  readonly table: TableV2;
  readonly key: Key;
  /** The key policy's statement for the table's users; grantItemActions adds each role as a principal. */
  private readonly keyUse: PolicyStatement;

  constructor(scope: Construct, id: string, props: { readonly keepLegacyNewestIndex?: boolean } = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    this.key = new Key(this, "Key", {
      description: "Encrypts the CRM integration's record table at rest (DynamoDB, customer-managed key)",
      enableKeyRotation: true,
      alias: `alias/${stack.stackName}/record-table`,
      // Without the key the retained table cannot be read.
      removalPolicy: RemovalPolicy.RETAIN,
      policy: keyAdministration(),
    });
    this.table = new TableV2(this, "Table", {
      partitionKey: { name: RECORD_TABLE.partitionKey.name, type: AttributeType.STRING },
      sortKey: { name: RECORD_TABLE.sortKey.name, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // The records explorer's newest-first listing (lambdas/adapters/dynamodb/table/table-definition.ts): its keys only,
      // since DynamoDB bills every index write beside the table's ("Global secondary indexes in DynamoDB").
      globalSecondaryIndexes: [
        {
          indexName: RECORD_TABLE.newestIndex.name,
          partitionKey: { name: RECORD_TABLE.partitionKey.name, type: AttributeType.STRING },
          sortKey: { name: RECORD_TABLE.newestIndex.sortKey.name, type: AttributeType.STRING },
          projectionType: ProjectionType.KEYS_ONLY,
        },
        // A table created with the old index keeps it for one deploy: one index created or deleted per table update.
        ...(props.keepLegacyNewestIndex === true
          ? [
              {
                indexName: RECORD_TABLE.legacyNewestIndexName,
                partitionKey: { name: RECORD_TABLE.partitionKey.name, type: AttributeType.STRING },
                sortKey: { name: RECORD_TABLE.newestIndex.sortKey.name, type: AttributeType.STRING },
                projectionType: ProjectionType.ALL,
              },
            ]
          : []),
      ],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // Customer data: a stack deletion keeps the table.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // TableEncryptionV2.customerManagedKey needs a region-specific stack (it renders per-replica keys by region
    // name); this stack is region-agnostic, with one replica in the deploy region, so the key is set on it here.
    const cfn = this.table.node.defaultChild as CfnGlobalTable;
    cfn.addPropertyOverride("SSESpecification", { SSEEnabled: true, SSEType: "KMS" });
    cfn.addPropertyOverride("Replicas.0.SSESpecification", { KMSMasterKeyId: this.key.keyArn });
    this.keyUse = new PolicyStatement({
      sid: "TableUsersThroughDynamoDB",
      actions: [...TABLE_KEY_ACTIONS],
      resources: ["*"],
      conditions: { StringEquals: { "kms:ViaService": `dynamodb.${stack.region}.amazonaws.com`, "kms:CallerAccount": stack.account } },
    });
    this.key.addToResourcePolicy(this.keyUse);
  }

  /**
   * Exactly `actions` on this table's ARN (not its index: see grantNewestIndexQuery), and the
   * role named in the table key's policy (use through DynamoDB only).
   */
  grantItemActions(role: IRole, actions: readonly TableAction[]): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...actions], resources: [this.table.tableArn] }));
    this.keyUse.addArnPrincipal(role.roleArn);
  }

  /** Query on the records-newest index only: the records explorer's newest-first listing (the Api function). */
  grantNewestIndexQuery(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["dynamodb:Query"], resources: [`${this.table.tableArn}/index/${RECORD_TABLE.newestIndex.name}`] }),
    );
  }
}
