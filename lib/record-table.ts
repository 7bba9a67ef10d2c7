import { RemovalPolicy } from "aws-cdk-lib";
import { AttributeType, Billing, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import type { IGrantable } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { RECORD_TABLE } from "../lambdas/store/table-definition";

/**
 * The item-level DynamoDB actions the Lambdas use, and no others (no Scan, no
 * BatchGetItem, no streams, no table management). TransactWriteItems and
 * TransactGetItems have no IAM action of their own: DynamoDB checks each item
 * action inside them (Put, Update, Delete, ConditionCheck, Get).
 * test/cdk/iam.test.ts keeps this list in step with the commands lambdas/ sends.
 */
export const RECORD_TABLE_ACTIONS = [
  "dynamodb:GetItem",
  "dynamodb:Query",
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
  "dynamodb:BatchWriteItem",
  "dynamodb:ConditionCheckItem",
] as const;

/**
 * The canonical record table, built from the same key definition that the
 * tests and the local runtime create on DynamoDB Local.
 */
export class RecordTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new TableV2(this, "Table", {
      partitionKey: { name: RECORD_TABLE.partitionKey.name, type: AttributeType.STRING },
      sortKey: { name: RECORD_TABLE.sortKey.name, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // Customer data: a stack deletion keeps the table.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** Read and write items (RECORD_TABLE_ACTIONS) on this table's ARN; the table has no index. */
  grantRecordAccess(grantee: IGrantable): void {
    this.table.grant(grantee, ...RECORD_TABLE_ACTIONS);
  }
}
