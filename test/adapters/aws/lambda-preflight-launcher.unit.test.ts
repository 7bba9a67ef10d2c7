import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { describe, expect, test } from "vitest";
import { LambdaPreflightLauncher } from "../../../lambdas/adapters/aws/lambda-preflight-launcher";

const WORKER = "arn:aws:lambda:eu-west-1:123456789012:function:crm-PreflightWorker:live";

/** The Lambda API has no local engine: record the adapter's requests. */
function recordingClient() {
  const sent: unknown[] = [];
  const client = new LambdaClient({ region: "eu-west-1", credentials: { accessKeyId: "x", secretAccessKey: "y" } });
  client.send = (async (command: unknown) => {
    sent.push(command);
    return { StatusCode: 202 };
  }) as LambdaClient["send"];
  return { client, sent };
}

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
