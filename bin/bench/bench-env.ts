import { randomUUID } from "node:crypto";
import { DeleteTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createDynamoDbClient } from "../../lambdas/adapters/dynamodb/table/dynamodb-client";
import type { Logger } from "../../lambdas/domain/core/ports/logger";
import { createJsonLogger } from "../../lambdas/adapters/local/json-logger";
import { ensureTable } from "../../lambdas/adapters/dynamodb/table/table-definition";
import type { BenchSize } from "./options";
import type { Table } from "./table";

/** What every measurement gets from bin/bench.ts: the one DynamoDB Local of the run, and the options. */
export interface BenchContext {
  /** The in-memory DynamoDB Local shared by every measurement (each makes its own table). */
  readonly endpoint: string;
  readonly size: BenchSize;
  /** --rates: the rate-bound measurement's rate_limits, when given. */
  readonly rates?: readonly number[];
  /** --latencies: the latency measurement's source latencies (ms), when given. */
  readonly latencies?: readonly number[];
  /** Progress lines (stderr), so that stdout holds only the figures. */
  readonly progress: (line: string) => void;
}

/** The value for the run's size: each measurement names its full, quick and smoke sizes in one place. */
export function bySize<T>(context: Pick<BenchContext, "size">, sizes: Readonly<Record<BenchSize, T>>): T {
  return sizes[context.size];
}

export function benchClient(endpoint: string): DynamoDBClient {
  return createDynamoDbClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
  });
}

/** A fresh table of the service's definition, named after the measurement. */
export async function freshTable(client: DynamoDBClient, label: string): Promise<string> {
  const tableName = `bench-${label}-${randomUUID().slice(0, 8)}`;
  await ensureTable(client, tableName);
  return tableName;
}

/** Frees DynamoDB Local's memory once a measurement is done with its table. */
export async function dropTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
}

/**
 * The service's own JSON logger (so a log line costs what it costs in
 * production: one JSON.stringify), writing nowhere; it only counts lines.
 */
export function discardingLogger(): Logger & { readonly count: () => number } {
  let lines = 0;
  const logger = createJsonLogger({ write: () => void (lines += 1) });
  return { ...logger, count: () => lines };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What a measurement hands back to bin/bench.ts: its tables, and for the rate-bound one the binding-limit lines. */
export interface MeasurementResult {
  readonly tables: readonly Table[];
  readonly binding?: readonly string[];
}
