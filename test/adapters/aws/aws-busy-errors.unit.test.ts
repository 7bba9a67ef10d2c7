import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { atStoreEdge, isBusyAwsError } from "../../../lambdas/adapters/aws/aws-busy-errors";
import { StoreUnavailableError } from "../../../lambdas/domain/core/errors";

const $metadata = { httpStatusCode: 400 };
const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(name), { name, ...extra });
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: "cancelled", $metadata, CancellationReasons: codes.map((Code) => ({ Code })) });

describe("busy AWS errors: one list, for every adapter", () => {
  test.each(["ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded", "TransactionConflictException", "TransactionInProgressException", "InternalServerError", "ServiceUnavailable"])(
    "%s is busy",
    (name) => expect(isBusyAwsError(named(name))).toBe(true),
  );

  test("ServiceUnavailableException and KMSInternalException are busy (the sync's list lacked the first, the API's the second)", () => {
    expect(isBusyAwsError(named("ServiceUnavailableException"))).toBe(true);
    expect(isBusyAwsError(named("KMSInternalException"))).toBe(true);
  });

  test("a TransactionCanceledException is busy only when its reasons are conflicts or throttling, never a failed condition", () => {
    expect(isBusyAwsError(cancelled("None", "TransactionConflict"))).toBe(true);
    expect(isBusyAwsError(cancelled("ThrottlingError", "None"))).toBe(true);
    expect(isBusyAwsError(cancelled("ProvisionedThroughputExceeded"))).toBe(true);
    expect(isBusyAwsError(cancelled("ConditionalCheckFailed", "None"))).toBe(false);
    expect(isBusyAwsError(cancelled("TransactionConflict", "ConditionalCheckFailed"))).toBe(false);
    expect(isBusyAwsError(cancelled("ValidationError"))).toBe(false);
    expect(isBusyAwsError(cancelled("None", "None"))).toBe(false);
    expect(isBusyAwsError(cancelled())).toBe(false);
  });

  test("any error the SDK marks $retryable or a server fault is busy; a client's mistake, a failed condition and a non-AWS error are not", () => {
    expect(isBusyAwsError(named("SomeNewThrottle", { $retryable: { throttling: true } }))).toBe(true);
    expect(isBusyAwsError(named("SomeOutage", { $fault: "server" }))).toBe(true);
    expect(isBusyAwsError(named("ConditionalCheckFailedException", { $fault: "client" }))).toBe(false);
    expect(isBusyAwsError(named("ValidationException", { $fault: "client" }))).toBe(false);
    expect(isBusyAwsError(new TypeError("x is undefined"))).toBe(false);
    expect(isBusyAwsError("a string")).toBe(false);
  });

  test("at a store's edge a busy error becomes StoreUnavailableError with the SDK's as its cause; any other passes unchanged; the client's send is looked up per call", async () => {
    const client = { send: async (_command: unknown): Promise<unknown> => "ok" };
    const edge = atStoreEdge(client);
    expect(await edge.send("command")).toBe("ok");
    const throttled = named("ThrottlingException");
    client.send = async () => {
      throw throttled;
    };
    const failure = await edge.send("command").catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect((failure as StoreUnavailableError).detail).toBe("ThrottlingException: ThrottlingException");
    expect((failure as StoreUnavailableError).cause).toBe(throttled);
    const condition = cancelled("ConditionalCheckFailed");
    client.send = async () => {
      throw condition;
    };
    await expect(edge.send("command")).rejects.toBe(condition);
  });
});
