import { performance } from "node:perf_hooks";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { DynamoDbCallSample } from "./page-sample";

export interface DynamoDbTiming {
  /** Each call's duration (serialisation, signing, HTTP, parsing, SDK retries), what it was, and when it started. */
  call(ms: number, label: string, startedAt: number): void;
  /** A call started while no other was in flight: one more round trip on the critical path. */
  roundTrip(): void;
  /** A stretch of time with calls in flight has ended. */
  busy(ms: number): void;
}

export function timeDynamoDbCalls(client: DynamoDBClient, timing: DynamoDbTiming): void {
  let inFlight = 0;
  let busySince = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      const label = callLabel(context.commandName ?? "call", args.input as Record<string, unknown>);
      if (inFlight++ === 0) {
        busySince = started;
        timing.roundTrip();
      }
      try {
        return await next(args);
      } finally {
        const ended = performance.now();
        timing.call(ended - started, label, started);
        if (--inFlight === 0) timing.busy(ended - busySince);
      }
    },
    { step: "initialize", name: "benchTiming", priority: "high" },
  );
}

/**
 * The limiter's own DynamoDB time among calls: those on its log's item (key
 * prefix RATE, lambdas/adapters/dynamodb/rate-limit/rate-limit-keys.ts). The page task reads its
 * connection while it takes its slot, so other calls finish inside acquire() too.
 */
export function limiterCallsMs(calls: readonly Pick<DynamoDbCallSample, "label" | "ms">[]): number {
  return calls.filter((call) => /^(GetItem|PutItem) RATE\b/.test(call.label)).reduce((sum, call) => sum + call.ms, 0);
}

/**
 * What a DynamoDB call is, from its command and key: "GetItem CONN" (the
 * connection read), "PutItem RATE" (the limiter's write), "TransactWriteItems
 * (100 actions)", and so on. The key's prefix is the part before its first '#'.
 */
function callLabel(command: string, input: Record<string, unknown>): string {
  const name = command.replace(/Command$/, "");
  const items = input["TransactItems"];
  if (Array.isArray(items)) return `${name} (${items.length} actions)`;
  const key = (input["Key"] ?? input["Item"]) as Record<string, { S?: string }> | undefined;
  const pk = key?.["pk"]?.S ?? (input["ExpressionAttributeValues"] as Record<string, { S?: string }> | undefined)?.[":pk"]?.S;
  return pk === undefined ? name : `${name} ${pk.split("#")[0]}`;
}
