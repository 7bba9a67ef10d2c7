import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { describe, expect, test } from "vitest";
import { LambdaPreflightLauncher } from "../../../lambdas/adapters/aws/lambda-preflight-launcher";
import { recordingClient as recordingClientOf } from "../../support/recording-client";

const WORKER = "arn:aws:lambda:eu-west-1:123456789012:function:crm-PreflightWorker:live";

/** Lambda has no local engine: the adapter's requests are recorded and answered as an accepted asynchronous invoke. */
const recordingClient = () => recordingClientOf(LambdaClient, () => ({ StatusCode: 202 }));

describe("LambdaPreflightLauncher", () => {
  test("launch: one asynchronous Invoke (InvocationType Event) of the worker with the job as its payload, ids only", async () => {
    const { client, sent } = recordingClient();
    const job = { business_account_id: "acct", connection_id: "conn", preflight_id: "20261121T000000000Z-abcdef" };
    await new LambdaPreflightLauncher({ client, functionName: WORKER }).launch(job);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(InvokeCommand);
    const input = (sent[0] as InvokeCommand).input;
    expect({ ...input, Payload: undefined }).toEqual({ FunctionName: WORKER, InvocationType: "Event", Payload: undefined });
    expect(JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array))).toEqual(job);
  });
});
