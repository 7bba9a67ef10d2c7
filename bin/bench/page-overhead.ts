import { performance } from "node:perf_hooks";
import { BatchWriteItemCommand, type AttributeValue, type DynamoDBClient, type WriteRequest } from "@aws-sdk/client-dynamodb";
import { startReferenceSource, type ReferenceSource } from "../reference-source/start-reference-source";
import { LeadSchema } from "../../lambdas/records/lead";
import { parseRecord } from "../../lambdas/records/parse-record";
import { benchClient, bySize, dropTable, freshTable, type BenchContext, type MeasurementResult } from "./bench-env";
import { createInstrumentedSync, isFullLeadsPage } from "./instrumented-sync";
import { breakdown, callBreakdown, cycles } from "./page-stats";
import { median, p95 } from "./stats";
import { num, type Table } from "./table";

/** Sizes of the other entities when only the leads matter. */
export const TINY_OTHERS = { pipelines: 3, users: 10, contacts: 20, tasks: 20, calls: 20, events: 20 } as const;
/** Requests per second high enough never to bind (the page task is far slower). */
export const UNBOUND_RATE = 1000;

/**
 * 2. Service overhead per page: a sync at rate_limit 1000; for every full
 * page of leads, the SyncPage task's time minus its fetchPage time. The
 * floor: the same 100 leads (a page the source serves, normalised with
 * LeadSchema) put by a bare BatchWriteItem loop, 4 batches of 25.
 */
export async function measurePageOverhead(context: BenchContext): Promise<MeasurementResult> {
  const leads = bySize(context, { full: 10_000, quick: 2_000, smoke: 300 });
  const floorRounds = bySize(context, { full: 100, quick: 20, smoke: 2 });
  const client = benchClient(context.endpoint);
  const tableName = await freshTable(client, "overhead");
  const source = await startReferenceSource({ sizes: { ...TINY_OTHERS, leads } });
  const sync = createInstrumentedSync({ endpoint: context.endpoint, tableName });
  try {
    context.progress(`overhead: ${leads} leads at rate_limit ${UNBOUND_RATE}`);
    const connection = await sync.addConnection({ baseUrl: source.url, token: source.token, rateLimit: UNBOUND_RATE });
    const run = await sync.syncWithStateMachine(connection);
    if (run.summary.status !== "succeeded") throw new Error(`the overhead run ${run.summary.status}`);
    const full = run.pages.filter(isFullLeadsPage);
    const pages = breakdown(full);
    const calls = callBreakdown(full);
    const { gapMs, cycleMs } = cycles(full, run.tasks);

    context.progress(`overhead: floor, ${floorRounds} rounds of 4 x BatchWriteItem(25)`);
    const floorTable = await freshTable(client, "floor");
    const floorMs = await measureFloor(client, floorTable, await leadPage(source), floorRounds);
    await dropTable(client, floorTable);
    const floorMedian = median(floorMs);

    const table: Table = {
      title: `2. Service overhead per 100-lead page (rate_limit ${UNBOUND_RATE}, ${leads.toLocaleString("en-US")} leads, ${pages.pages} full pages)`,
      columns: ["figure", "median (ms)", "p95 (ms)"],
      rows: [
        ["page task (SyncPage handler), whole", num(pages.handlerMs, 1), "-"],
        ["  of which fetch (source HTTP + envelope)", num(pages.fetchMs, 1), "-"],
        ["service overhead = task - fetch", num(pages.overheadMs, 1), num(pages.overheadP95Ms, 1)],
        [`  DynamoDB calls (${num(pages.ddbCalls, 0)} per page, limiter's included; summed)`, num(pages.ddbMs, 1), "-"],
        ["  store round trips on the critical path per page (target <= 3)", num(pages.ddbRoundTrips, 0), "-"],
        ["    of which commitPage (TransactWriteItems)", num(pages.commitMs, 1), "-"],
        ...calls.map((call) => [
          `    ${call.label} (${num(call.share * 100, 0)}% of pages; starts at +${num(call.medianOffsetMs, 1)} ms)`,
          num(call.medianMs, 1),
          "-",
        ]),
        ["  rate limiter wait (acquire, a reserved slot's start, a reservation outlasting the commit)", num(pages.limiterWaitMs, 1), "-"],
        ["  task start to the request leaving (decrypt; the slot: reserved, waited for, or taken)", num(median(full.map((page) => page.fetchOffsetMs)), 1), num(p95(full.map((page) => page.fetchOffsetMs)), 1)],
        ["  pages whose slot was reserved by the previous task / of those, replaced as stale", `${num((full.filter((page) => page.reservedSlotAt !== null).length * 100) / Math.max(1, full.length), 0)}% / ${num((full.filter((page) => page.reservedSlotAt !== null && page.acquires > 0).length * 100) / Math.max(1, full.filter((page) => page.reservedSlotAt !== null).length), 0)}%`, "-"],
        ["  in process (validate, normalise, plan, log, decrypt)", num(pages.inProcessMs, 1), "-"],
        ["orchestration: gap from a page task's end to the next task's start (engine)", num(median(gapMs), 2), num(p95(gapMs), 2)],
        ["cycle: one page task's start to the next one's", num(median(cycleMs), 1), num(p95(cycleMs), 1)],
        ["floor: same 100 leads, 4 x BatchWriteItem(25), bare SDK", num(floorMedian, 1), num(p95(floorMs), 1)],
        ["ratio: median overhead / median floor (target <= 1.2x)", `${num(pages.overheadMs / floorMedian, 2)}x`, "-"],
      ],
      notes: [
        "Timed from outside the domain: a wrapped SourceClient times fetchPage; the Task handlers are wrapped; a DynamoDB client middleware times each call. Medians of each column are taken separately (they do not add up exactly).",
        "Each DynamoDB call is labelled by its command and the prefix of its key (CONNECTION: the connection read; RATE: the rate limiter's log; TransactWriteItems by its action count) and sits on the task's timeline at its median start; calls that start at the same offset overlap (one round trip).",
        "Full pages only: entity leads, 100 records, has_more true (the entity's last page also finishes the entity).",
        `Floor: the 100 leads of GET /leads?page=1, parsed with LeadSchema, stored as the store's head items (pk, sk, key, doc JSON) under a new partition each round, 4 sequential BatchWriteItem of 25 (unprocessed items re-sent); ${floorRounds} rounds after 5 warm-up rounds.`,
      ],
    };
    return { tables: [table] };
  } finally {
    await sync.close();
    await source.close();
    await dropTable(client, tableName);
    client.destroy();
  }
}

/** Page 1 of /leads as the source serves it, normalised the way the service does. */
export async function leadPage(source: Pick<ReferenceSource, "url" | "token">): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${source.url}/leads?limit=100&page=1`, {
    headers: { authorization: `Bearer ${source.token}`, accept: "application/json" },
  });
  if (!response.ok) throw new Error(`GET /leads answered ${response.status}`);
  const body = (await response.json()) as { data: unknown[] };
  if (body.data.length !== 100) throw new Error(`GET /leads gave ${body.data.length} leads, not 100`);
  return body.data.map((raw, index) => parseRecord(LeadSchema, raw, index) as Record<string, unknown>);
}

/** ms per round of 100 puts: 4 sequential BatchWriteItem calls of 25. */
export async function measureFloor(client: DynamoDBClient, tableName: string, docs: readonly Record<string, unknown>[], rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let round = -5; round < rounds; round += 1) {
    const started = performance.now();
    const items = docs.map(
      (doc): Record<string, AttributeValue> => ({
        pk: { S: `FLOOR#${round}#leads` },
        sk: { S: String(doc["id"]) },
        key: { S: JSON.stringify([String(doc["id"])]) },
        doc: { S: JSON.stringify(doc) },
      }),
    );
    for (let start = 0; start < items.length; start += 25) {
      let requests: WriteRequest[] = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
      while (requests.length > 0) {
        const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: requests } }));
        requests = out.UnprocessedItems?.[tableName] ?? [];
      }
    }
    if (round >= 0) times.push(performance.now() - started);
  }
  return times;
}
