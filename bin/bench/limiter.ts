import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import type { SourceClient } from "../../lambdas/domain/core/ports/source-client";
import { RATE_WINDOW_MS } from "../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { dynamoDbAdapters } from "../../lambdas/adapters/dynamodb/dynamodb-adapters";
import { rateLimited } from "../../lambdas/domain/sync/rate-limited-source-client";
import { createHttpSourceClient } from "../../lambdas/adapters/source-http/http-source-client";
import { benchClient, bySize, dropTable, freshTable, type BenchContext, type MeasurementResult } from "./bench-env";
import { busiestWindow } from "./stats";
import { num, type Table } from "./table";

/**
 * 6. The rate limiter alone, in real time, at a loopback source that stamps
 * arrivals: the throughput and window figures the tests used to measure
 * (the tests now check the limiter's rules on a virtual clock, by counts).
 * Each caller is a "process": its own limiter and DynamoDB client on the
 * shared table, several requests in flight at once.
 */
export async function measureLimiter(context: BenchContext): Promise<MeasurementResult> {
  const client = benchClient(context.endpoint);
  const tableName = await freshTable(client, "limiter");
  const arrivals: { at: number; token: string }[] = [];
  const server = createServer((req, res) => {
    arrivals.push({ at: performance.timeOrigin + performance.now(), token: req.headers.authorization ?? "" });
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"data":[],"has_more":false}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = createHttpSourceClient();
  const processClients: ReturnType<typeof benchClient>[] = [];
  const caller = (connectionId: string, rate: number): SourceClient => {
    const own = benchClient(context.endpoint);
    processClients.push(own);
    return rateLimited(http, dynamoDbAdapters({ client: own, tableName }).limiter, { connectionId, rateLimit: rate });
  };
  const pages = (source: SourceClient, token: string, count: number) =>
    Promise.all(Array.from({ length: count }, (_, i) => source.fetchPage({ baseUrl, token }, { path: "/leads", page: i + 1 })));

  // k x rate_limit + 1 requests per connection: then (n - 1) / span can only exceed the rate by breaking the
  // window rule, whatever the admission pattern (a burst per window or evenly spaced).
  const windows = bySize(context, { full: 6, quick: 2, smoke: 1 });
  const scenarios: { name: string; rate: number; connections: number; callers: number }[] = [
    { name: "1 connection, 1 caller", rate: 10, connections: 1, callers: 1 },
    { name: "1 connection, 3 callers", rate: 5, connections: 1, callers: 3 },
    { name: "2 connections, same base URL", rate: 2, connections: 2, callers: 1 },
  ];
  const rows: (string | number)[][] = [];
  try {
    // The first fetch of the process loads the HTTP stack and opens a connection (~100 ms): not measured.
    await http.fetchPage({ baseUrl, token: "warm-up" }, { path: "/leads", page: 1 });
    for (const scenario of scenarios) {
      context.progress(`limiter: ${scenario.name} at rate_limit ${scenario.rate}`);
      arrivals.length = 0;
      const tokens = Array.from({ length: scenario.connections }, (_, i) => `bench-limiter-${i}`);
      const perConnection = windows * scenario.rate + 1;
      await Promise.all(
        tokens.map((token) => {
          const connectionId = `conn-${randomUUID()}`;
          // The requests split between the callers, the first taking the remainder.
          const counts = Array.from({ length: scenario.callers }, (_, i) =>
            Math.floor(perConnection / scenario.callers) + (i === 0 ? perConnection % scenario.callers : 0),
          );
          return Promise.all(counts.map((count) => pages(caller(connectionId, scenario.rate), token, count)));
        }),
      );
      const timesByConnection = tokens.map((token) => arrivals.filter((arrival) => arrival.token === `Bearer ${token}`).map((arrival) => arrival.at));
      const achieved = timesByConnection.map((times) => ((times.length - 1) * 1000) / (Math.max(...times) - Math.min(...times)));
      const all = arrivals.map((arrival) => arrival.at);
      rows.push([
        scenario.name,
        scenario.rate,
        arrivals.length,
        achieved.map((rate) => num(rate, 2)).join(" / "),
        achieved.map((rate) => num(rate / scenario.rate, 3)).join(" / "),
        timesByConnection.map((times) => busiestWindow(times, 1000)).join(" / "),
        busiestWindow(all, 1000),
        num((Math.max(...all) - Math.min(...all)) / 1000, 2),
      ]);
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const own of processClients) own.destroy();
    await dropTable(client, tableName);
    client.destroy();
  }
  const table: Table = {
    title: "6. Rate limiter alone: callers in separate processes (own limiter and DynamoDB client), all requests in flight at once, loopback source",
    columns: [
      "scenario",
      "rate_limit (req/s)",
      "requests at source",
      "achieved per connection (req/s)",
      "achieved / rate_limit",
      "busiest 1 s window per connection (req)",
      "busiest 1 s window at the base URL (req)",
      "span (s)",
    ],
    rows,
    notes: [
      "requests per connection = k x rate_limit + 1 (k = 6; 2 with --quick, 1 with --smoke), all made at once. achieved = (requests of the connection - 1) / (its last arrival - its first arrival), arrivals stamped by the source; at most 1000/" +
        `${RATE_WINDOW_MS} = ${num(1000 / RATE_WINDOW_MS, 3)} x rate_limit by design, target >= 0.9.`,
      "busiest 1 s window per connection must be <= rate_limit; at the base URL, two connections may reach twice that (they are throttled independently).",
    ],
  };
  return { tables: [table] };
}
