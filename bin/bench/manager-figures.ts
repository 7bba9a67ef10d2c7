import { performance } from "node:perf_hooks";
import type { DynamoDbAdapters } from "../../lambdas/adapters/dynamodb/dynamodb-adapters";
import { dynamoDbKeySpace } from "../../lambdas/adapters/dynamodb/dynamodb-key-space";
import { refreshManagers } from "../../lambdas/domain/analytics/refresh-managers";
import type { ApiDeps } from "../../lambdas/domain/analytics/analytics-deps";
import { makeApiHandler, type ApiEvent } from "../../lambdas/handlers/http/api-handler";
import { discardingLogger } from "./bench-env";
import { median } from "./stats";
import { num, type Table } from "./table";

/** Route calls timed per role; the median is printed. */
const CALLS = 21;
const ACCOUNT = "bench-analytics-account";

/**
 * The per-manager figures at the analytics measurement's size, on the records
 * it stored: the run-end refresh (a read of every lead, task and call, and the
 * aggregates written), then GET /api/v1/analytics/connections/{id}/managers
 * through the API's own handler (owner: every row; MOP: their row), timed
 * from the event to the response. Figures only, never asserted.
 */
export async function measureManagerFigures(
  adapters: DynamoDbAdapters,
  connectionId: string,
  sizes: { readonly leads: number; readonly tasks: number; readonly calls: number; readonly users: number },
): Promise<Table> {
  const { managers, connections, records, recordScan: scan } = adapters;
  const now = new Date();
  await connections.put({
    id: connectionId, business_account_id: ACCOUNT, crm_type: "custom", base_url: "https://crm.example.com", rate_limit: 5,
    sync_since: "2020-01-01T00:00:00.000Z", created_at: now.toISOString(), updated_at: now.toISOString(), token_ciphertext: "unused",
  });
  const logger = discardingLogger();
  const clock = { now: () => new Date() };
  const refresh = await refreshManagers({ scan, managers, clock, logger }, { connectionId, force: true });
  const again = await refreshManagers({ scan, managers, clock, logger }, { connectionId, force: false });
  // One MOP linked by the owner to the busiest manager.
  await managers.setLink(connectionId, "user-0", "member-0", now.toISOString());

  const handler = makeApiHandler({ connections, records, managers, clock, logger, keySpace: dynamoDbKeySpace } as unknown as ApiDeps);
  const event = (role: string, sub: string): ApiEvent =>
    ({
      routeKey: "GET /api/v1/analytics/connections/{id}/managers",
      pathParameters: { id: connectionId },
      queryStringParameters: {},
      isBase64Encoded: false,
      requestContext: { authorizer: { jwt: { claims: { business_account_id: ACCOUNT, sub, role }, scopes: [] } } },
    }) as unknown as ApiEvent;
  const time = async (role: string, sub: string) => {
    const ms: number[] = [];
    let rows = 0;
    for (let call = 0; call < CALLS; call += 1) {
      const started = performance.now();
      const response = (await handler(event(role, sub), {} as never)) as { statusCode: number; body: string };
      ms.push(performance.now() - started);
      if (response.statusCode !== 200) throw new Error(`the figures route answered ${response.statusCode}: ${response.body}`);
      rows = (JSON.parse(response.body) as { rows: unknown[] }).rows.length;
    }
    return { ms: median(ms), rows };
  };
  const owner = await time("owner", "owner-0");
  const mop = await time("MOP", "member-0");
  // Strongly consistent Query: 1 RRU per 4 KB of items read; ~300 bytes of keys and lineage per head beside its document.
  const readUnits = Math.ceil((refresh.bytes + refresh.records * 300) / 4096);
  return {
    title: "7b. Per-manager figures: the run-end refresh and GET /api/v1/analytics/connections/{id}/managers",
    columns: ["leads", "managers", "refresh: records read", "refresh (s)", "≈ RRU read", "items written", "refresh, nothing changed (ms)", "route, owner (ms)", "route, MOP (ms)"],
    rows: [[num(sizes.leads), num(sizes.users), num(refresh.records), num(refresh.ms / 1000, 1), num(readUnits), num(refresh.written), num(again.ms), num(owner.ms, 1), num(mop.ms, 1)]],
    notes: [
      `${sizes.tasks.toLocaleString("en-US")} tasks and ${sizes.calls.toLocaleString("en-US")} calls beside the leads, over ${sizes.users} managers and two years of dates; the route's figures are the default period (30 days), ${owner.rows} rows for the owner, ${mop.rows} for the MOP; median of ${CALLS} calls through the API's handler (the event to the response, no HTTP), DynamoDB Local in memory.`,
      "The refresh runs once per run that wrote records (ManagerRefresh, asynchronous): the page task adds nothing. A run that wrote nothing costs the version's reads only (the 'nothing changed' column).",
    ],
  };
}
