import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { TEXT_LIMITS } from "../../../lambdas/domain/core/limits";
import { claimDispatchedRuns, countLiveRuns, DISPATCH_PAGE_SIZE, planDispatchPage, STATE_PAYLOAD_MAX_BYTES } from "../../../lambdas/domain/sync/dispatch-tick";
import { createSyncHarness, type SyncHarness } from "../../support/sync-harness";
import { testDynamoDbClient } from "../../support/dynamodb";
import { countReadUnits } from "../../support/read-units";
import { tickReads } from "../../../bin/cost/tick-reads";
import { CONNECTION_PARTITION_KEY } from "../../../lambdas/adapters/dynamodb/connections/connection-keys";

let harness: SyncHarness;
beforeEach(async () => {
  harness = await createSyncHarness();
});
afterEach(async () => {
  await harness.close();
});

describe("a batch's claims (ClaimRuns)", () => {
  test("one connection's failed claim does not fail the batch: the others are claimed, and the failed one holds no lock", async () => {
    const connections = [];
    for (let i = 0; i < 3; i += 1) connections.push(await harness.addConnection({ baseUrl: "http://127.0.0.1:9", token: "claims-token-1f" }));
    const failing = connections[1]!.id;
    const begin = harness.runs.begin.bind(harness.runs);
    harness.runs.begin = async (run, options) => {
      if (run.connectionId === failing) {
        const error = new Error("the table is unreachable");
        error.name = "StoreUnavailableError";
        throw error;
      }
      return begin(run, options);
    };
    const items = connections.map((connection) => ({ business_account_id: connection.business_account_id, connection_id: connection.id }));

    const { runs } = await claimDispatchedRuns(harness.startDeps, items);

    expect(runs.map((run) => run.connection_id)).toEqual([connections[0]!.id, connections[2]!.id]);
    expect(await harness.runs.lock(failing)).toBeNull();
    for (const run of runs) expect((await harness.runs.lock(run.connection_id))?.runId).toBe(run.run_id);
  });
});

describe("the tick's count of live runs (ListConnections)", () => {
  test("a run counts as live while its lock is held and its lease has not run out or an execution is recorded on it; a released lock and a lapsed lease with no execution do not count; a damaged lock counts", async () => {
    const connections = [];
    for (let i = 0; i < 5; i += 1) connections.push(await harness.addConnection({ baseUrl: "http://127.0.0.1:9", token: "count-token-2b" }));
    const ids = connections.map((connection) => connection.id);
    const now = harness.startDeps.clock.now();
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    const startedAt = now.toISOString();
    await harness.runs.begin({ connectionId: ids[0]!, runId: "r0", startedAt, leaseUntil: at(60_000) }); // lease running
    await harness.runs.begin({ connectionId: ids[1]!, runId: "r1", startedAt, leaseUntil: at(-1) }); // lease lapsed, no execution
    await harness.runs.begin({ connectionId: ids[2]!, runId: "r2", startedAt, leaseUntil: at(-1) });
    await harness.runs.setExecution(ids[2]!, "r2", "exec-r2"); // lease lapsed, execution recorded: only a claim may call it dead
    await harness.runs.begin({ connectionId: ids[3]!, runId: "r3", startedAt, leaseUntil: at(60_000) });
    await harness.runs.finish(ids[3]!, "r3", { status: "succeeded", finishedAt: startedAt }); // released

    expect(await countLiveRuns(harness.startDeps, ids)).toBe(2);

    // A lock that does not parse counts as live (fewer children, never more) and does not fail the count.
    const heldLocks = harness.runs.heldLocks.bind(harness.runs);
    harness.runs.heldLocks = async (connectionIds) => ({ ...(await heldLocks(connectionIds)), damaged: 1 });
    expect(await countLiveRuns(harness.startDeps, ids)).toBe(3);
  });

  test("each page of a tick counts the live runs among its own connections only, paused ones included: every live run is counted once over the tick", async () => {
    const connections = [];
    // One account each, so the pages are [0, 1], [2, 3], [4] (connections are listed by account, then id).
    for (let i = 0; i < 5; i += 1) connections.push(await harness.addConnection({ baseUrl: "http://127.0.0.1:9", token: "count-token-2b", accountId: `acct-${i}` }));
    await harness.connections.put({ ...connections[4]!, paused: true });
    const now = harness.startDeps.clock.now();
    const leaseUntil = new Date(now.getTime() + 60_000).toISOString();
    const running = [connections[3]!.id, connections[4]!.id];
    for (const id of running) await harness.runs.begin({ connectionId: id, runId: `r-${id}`, startedAt: now.toISOString(), leaseUntil });
    const cap = { maxRuns: 6, maxChildren: 3 };

    let cursor: string | null = null;
    const pages = [];
    do {
      const page: Awaited<ReturnType<typeof planDispatchPage>> = await planDispatchPage(harness.startDeps, cursor, cap, Math.random, 2, 2);
      pages.push(page);
      cursor = page.cursor;
    } while (cursor !== null);

    expect(pages).toHaveLength(3);
    // 1 live under a cap of 6 leaves room for 2 children of 2; none, for 3. The paused connection's run counts on its page.
    expect(pages.map((page) => [page.live_runs, page.children, page.paused])).toEqual([
      [0, 3, 0],
      [1, 2, 0],
      [1, 2, 1],
    ]);
  });

  // DynamoDB bills every item a Query or BatchGetItem reads ("Read/write capacity mode", DynamoDB developer guide): a
  // tick that lists the fleet again and reads every lock at each page reads n² / page size items.
  test("a tick linear in connections (DynamoDB read units): 250 connections in pages of 100 are each listed once and their locks read once, in 3 Queries and 3 BatchGetItems, at no more read units than bin/cost/tick-reads.ts counts", async () => {
    for (let i = 0; i < 250; i += 1) await harness.addConnection({ baseUrl: "http://127.0.0.1:9", token: "linear-token-4d", accountId: `acct-${i % 7}` });
    const reader = testDynamoDbClient();
    const counter = countReadUnits(harness.client, reader);
    try {
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof planDispatchPage>> = await planDispatchPage(harness.startDeps, cursor, { maxRuns: 20, maxChildren: 2 }, Math.random, 100, 10);
        cursor = page.cursor;
      } while (cursor !== null);
      const model = await tickReads(250, 100);
      const locks = counter.reads.filter((read) => read.command === "BatchGetItemCommand");
      const listings = counter.reads.filter((read) => read.command === "QueryCommand" && read.pk === CONNECTION_PARTITION_KEY);
      console.info(`tick of 250 connections: ${listings.length} Queries, ${locks.length} locks in ${new Set(locks.map((read) => read.seq)).size} BatchGetItems, ${counter.total()} RRU (the model: ${model.rru})`);
      // Each once: 250 locks and 250 listed connections, whatever the model says.
      expect(locks).toHaveLength(250);
      expect(new Set(locks.map((read) => read.pk)).size).toBe(250);
      expect(listings.reduce((sum, read) => sum + read.items, 0)).toBe(250);
      expect(locks).toHaveLength(model.lockReads);
      expect(new Set(locks.map((read) => read.seq)).size).toBe(model.batchGets);
      expect(listings).toHaveLength(model.queries);
      expect(listings.reduce((sum, read) => sum + read.items, 0)).toBe(model.listedItems);
      expect(counter.total()).toBeLessThanOrEqual(model.rru);
    } finally {
      reader.destroy();
    }
  });

  test("heldLocks sends its BatchGetItems of 100 keys at once, not one after another", async () => {
    let inFlight = 0;
    let most = 0;
    harness.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== "BatchGetItemCommand") return next(args);
        most = Math.max(most, ++inFlight);
        try {
          return await next(args);
        } finally {
          inFlight -= 1;
        }
      },
      { step: "initialize", name: "lockReadsInFlight" },
    );
    await harness.runs.heldLocks(Array.from({ length: 450 }, (_, i) => `conn-${i}`));
    expect(most).toBe(5);
  });
});

describe("the size of a tick's page (ListConnections)", () => {
  test("ListConnections output size: a page of connections whose ids are at the longest the API allows stays within Step Functions' 256 KiB payload, and its cursor still walks every connection once", async () => {
    // The worst case the API allows: a 255-character account id of control characters, 6 bytes each once JSON-escaped.
    const accountId = "\u0001".repeat(TEXT_LIMITS.id);
    const ids = new Set<string>();
    for (let i = 0; i < 200; i += 1) ids.add((await harness.addConnection({ baseUrl: "http://127.0.0.1:9", token: "size-token-3c", accountId })).id);
    const cap = { maxRuns: 20, maxChildren: 2 };

    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof planDispatchPage>> = await planDispatchPage(harness.startDeps, cursor, cap, Math.random, DISPATCH_PAGE_SIZE, 10);
      expect(new TextEncoder().encode(JSON.stringify(page)).length).toBeLessThanOrEqual(STATE_PAYLOAD_MAX_BYTES);
      listed.push(...page.batches.flatMap((batch) => batch.items.map((item) => item.connection_id)));
      cursor = page.cursor;
    } while (cursor !== null);

    expect(listed.sort()).toEqual([...ids].sort());
  });
});
