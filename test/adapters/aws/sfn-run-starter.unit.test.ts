import { DescribeExecutionCommand, ExecutionDoesNotExist, SFNClient, StartExecutionCommand, StopExecutionCommand } from "@aws-sdk/client-sfn";
import { describe, expect, test } from "vitest";
import { SfnRunStarter } from "../../../lambdas/adapters/aws/sfn-run-starter";
import { SyncQueueUnavailableError } from "../../../lambdas/domain/core/errors";
import { recordingClient as recordingClientOf } from "../../support/recording-client";

const STATE_MACHINE = "arn:aws:states:eu-west-1:123456789012:stateMachine:crm-sync";

/** The Step Functions API has no local engine: the adapter's requests are recorded and answered (test/support/recording-client.ts). */
const recordingClient = (answer: (command: unknown) => unknown) => recordingClientOf(SFNClient, answer);

describe("SfnRunStarter", () => {
  test("start: one StartExecution named after the run id, with the run as input", async () => {
    const { client, sent } = recordingClient(() => ({ executionArn: `${STATE_MACHINE}:run-1` }));
    const starter = new SfnRunStarter({ client, stateMachineArn: STATE_MACHINE });
    const input = { business_account_id: "acct", connection_id: "conn", run_id: "20261121T000000000Z-abcdef" };
    await expect(starter.start(input)).resolves.toBe(`${STATE_MACHINE}:run-1`);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(StartExecutionCommand);
    expect((sent[0] as StartExecutionCommand).input).toEqual({
      stateMachineArn: STATE_MACHINE,
      name: input.run_id,
      input: JSON.stringify(input),
    });
  });

  test("isRunning: DescribeExecution status RUNNING is running; any final status or a missing execution is not", async () => {
    const statuses = ["RUNNING", "SUCCEEDED", "FAILED", "ABORTED", "TIMED_OUT"];
    for (const status of statuses) {
      const { client, sent } = recordingClient(() => ({ status }));
      const starter = new SfnRunStarter({ client, stateMachineArn: STATE_MACHINE });
      await expect(starter.isRunning("arn:exec")).resolves.toBe(status === "RUNNING");
      expect((sent[0] as DescribeExecutionCommand).input).toEqual({ executionArn: "arn:exec" });
    }
    const { client } = recordingClient(() => {
      throw new ExecutionDoesNotExist({ message: "gone", $metadata: {} });
    });
    await expect(new SfnRunStarter({ client, stateMachineArn: STATE_MACHINE }).isRunning("arn:exec")).resolves.toBe(false);
  });

  test("abort: one StopExecution of that execution, naming the owner's cancel; a missing execution is already stopped", async () => {
    const { client, sent } = recordingClient(() => ({ stopDate: new Date(0) }));
    await new SfnRunStarter({ client, stateMachineArn: STATE_MACHINE }).abort("arn:exec");
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(StopExecutionCommand);
    expect((sent[0] as StopExecutionCommand).input).toEqual({ executionArn: "arn:exec", error: "CancelledByOwner", cause: "cancelled by the owner" });
    const gone = recordingClient(() => {
      throw new ExecutionDoesNotExist({ message: "gone", $metadata: {} });
    });
    await expect(new SfnRunStarter({ client: gone.client, stateMachineArn: STATE_MACHINE }).abort("arn:exec")).resolves.toBeUndefined();
    const denied = recordingClient(() => {
      throw Object.assign(new Error("denied"), { name: "AccessDeniedException" });
    });
    await expect(new SfnRunStarter({ client: denied.client, stateMachineArn: STATE_MACHINE }).abort("arn:exec")).rejects.toThrow("denied");
  });

  test("busy Step Functions (throttled, a 5xx) is SyncQueueUnavailableError at the adapter's edge, with the service's error as the cause", async () => {
    const throttled = Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException", $fault: "client" });
    const { client } = recordingClient(() => {
      throw throttled;
    });
    const starter = new SfnRunStarter({ client, stateMachineArn: STATE_MACHINE });
    for (const call of [starter.start({ business_account_id: "a", connection_id: "c", run_id: "r" }), starter.isRunning("arn:exec"), starter.abort("arn:exec")]) {
      const failure = await call.then(
        () => expect.unreachable("Step Functions was busy"),
        (thrown: unknown) => thrown,
      );
      expect(failure).toBeInstanceOf(SyncQueueUnavailableError);
      expect((failure as SyncQueueUnavailableError).cause).toBe(throttled);
    }
  });
});
