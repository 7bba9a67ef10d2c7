import { RemovalPolicy } from "aws-cdk-lib";
import { AttributeType, Billing, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import { Construct } from "constructs";
import { RECORD_TABLE } from "../lambdas/store/table-definition";

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
}
