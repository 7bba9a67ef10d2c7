import { Stack, type StackProps } from "aws-cdk-lib";
import type { Construct } from "constructs";
import { RecordTable } from "./record-table";

/** The whole service in one stack. Later issues add the API, the state machine and the schedule. */
export class CrmIntegrationStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    new RecordTable(this, "Records");
  }
}
