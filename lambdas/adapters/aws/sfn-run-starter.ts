import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from "@aws-sdk/client-sfn";
import type { RunStarter, SyncExecutionInput } from "../../domain/core/ports/run-starter";
import { SyncQueueUnavailableError } from "../../domain/core/errors";
import { atEdge, awsErrorText } from "./aws-busy-errors";

/**
 * RunStarter on AWS Step Functions. The execution is named after the run id,
 * so a retried start of the same run is the same execution (StartExecution is
 * idempotent for an equal name and input) and the console shows the run id.
 */
export class SfnRunStarter implements RunStarter {
  /** Busy Step Functions errors become SyncQueueUnavailableError here, at the adapter's edge. */
  private readonly client: Pick<SFNClient, "send">;
  private readonly stateMachineArn: string;

  constructor(options: { readonly client: SFNClient; readonly stateMachineArn: string }) {
    this.client = atEdge(options.client, (error) => new SyncQueueUnavailableError(awsErrorText(error), { cause: error }));
    this.stateMachineArn = options.stateMachineArn;
  }

  async start(input: SyncExecutionInput): Promise<string> {
    const out = await this.client.send(
      new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name: input.run_id, input: JSON.stringify(input) }),
    );
    if (out.executionArn === undefined) throw new Error("StartExecution returned no executionArn");
    return out.executionArn;
  }

  async isRunning(executionRef: string): Promise<boolean> {
    try {
      const out = await this.client.send(new DescribeExecutionCommand({ executionArn: executionRef }));
      return out.status === "RUNNING";
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return false;
      throw error;
    }
  }

  /** StopExecution; an execution that no longer exists is already stopped. The cause is what the console shows. */
  async abort(executionRef: string): Promise<void> {
    try {
      await this.client.send(
        new StopExecutionCommand({ executionArn: executionRef, error: "CancelledByOwner", cause: "cancelled by the owner" }),
      );
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return;
      throw error;
    }
  }
}
