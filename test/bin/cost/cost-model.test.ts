import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { walk, type AslDefinition } from "../../../bin/cost/asl-walk";
import {
  idleConnectionMonth,
  MAX_CONCURRENT_RUNS_QUOTED,
  millionRecords,
  RECORD_WRU,
  RECORD_INDEX_WRU,
  FULL_PAGE_WRU,
  CHANGE_ITEMS_WRU,
  ISSUE_36_FEATURES_USD,
  RECORDS_QUOTED,
  standardTransitionsPerPage,
  TARGET_USD_PER_IDLE_CONNECTION_MONTH,
  TARGET_USD_PER_MILLION_RECORDS,
  AUDITED_RECORDS,
  RECORDS_PER_PAGE,
  TICK_CONNECTIONS,
  WEEKLY_AUDITS_PER_MONTH,
  weeklyAuditConnectionMonth,
} from "../../../bin/cost/cost-model";
import { DEFAULT_SIZES } from "../../../bin/reference-source/dataset";
import { AUDIT_ENTITIES } from "../../../lambdas/domain/core/run-mode";
import { DYNAMODB_WRU_USD } from "../../../bin/cost/prices";
import { PAGE_TASKS_PER_EXECUTION, PAGE_TASKS_PER_SEGMENT } from "../../../lambdas/domain/core/limits";
import { CONTEXT_DEFAULTS } from "../../../lib/deploy-config";
import { dispatchBatching } from "../../../statemachine/dispatch-definition";
import { tickReads } from "../../../bin/cost/tick-reads";

const tickOfFleet = await tickReads(TICK_CONNECTIONS);

describe("the ASL walk", () => {
  test("every state entered is one transition: Choice, Pass and Succeed included; a Task's result lands at its ResultPath", () => {
    const definition: AslDefinition = {
      StartAt: "Work",
      States: {
        Work: { Type: "Task", ResultPath: "$.result", Next: "Decide" },
        Decide: { Type: "Choice", Choices: [{ Variable: "$.result.again", StringEquals: "yes", Next: "Work" }], Default: "Shape" },
        Shape: { Type: "Pass", Result: "done", ResultPath: "$.status", Next: "Done" },
        Done: { Type: "Succeed" },
      },
    };
    let calls = 0;
    const walked = walk(definition, {}, () => ({ again: ++calls < 3 ? "yes" : "no" }));
    expect(walked.entered).toEqual(["Work", "Decide", "Work", "Decide", "Work", "Decide", "Shape", "Done"]);
    expect(walked.output).toEqual({ result: { again: "no" }, status: "done" });
    expect(walked.endedIn).toBe("Succeed");
  });
});

describe("npm run cost, from the definitions", () => {
  test("an idle run, as the schedule tick dispatches it, counts the Map child's start and states and its share of the tick: one Express segment and no Standard sync execution", () => {
    const idle = idleConnectionMonth(tickOfFleet);
    const { batchSize } = dispatchBatching(MAX_CONCURRENT_RUNS_QUOTED);
    expect(idle.dispatch.batchSize).toBe(batchSize);
    expect(idle.run.standardTransitions).toBe(0);
    expect(idle.run.expressExecutions).toBe(1);
    expect(idle.run.pages).toBe(7);
    expect(idle.run.endedIn).toBe("segment: run_succeeded");
    // A child: its start, ClaimRuns, FirstSegments, one FirstSegment per run, SettleFirstSegments, AnyUnfinished, BatchDone.
    const perChild = 1 + 5 + batchSize;
    const tick = idle.dispatch.tickTransitions / idle.dispatch.connections;
    expect(idle.standardTransitionsPerRun).toBeCloseTo(perChild / batchSize + tick, 10);
    expect(idle.standardTransitionsPerRun).toBeLessThan(2);
  });

  // DynamoDB bills every item a Query or BatchGetItem reads ("Read/write capacity mode"): a tick that lists and reads
  // the whole fleet again at each page of 1,000 reads n² / 1,000 items.
  test("a tick linear in connections (DynamoDB read units): the model's reads per connection per tick are the same at 1,000 and 100,000 connections, in about n / 100 calls", async () => {
    const large = await tickReads(100_000);
    for (const tick of [tickOfFleet, large]) {
      expect(tick.lockReads).toBe(tick.connections);
      expect(tick.listedItems).toBe(tick.connections);
      expect(tick.calls).toBeLessThanOrEqual(Math.ceil(tick.connections / 100) + tick.pages + 1);
    }
    expect(large.rruPerConnection).toBeLessThanOrEqual(tickOfFleet.rruPerConnection);
    expect(large.rruPerConnection).toBeLessThan(1);
  });

  // "Global secondary indexes in DynamoDB": a write is billed as the table's units plus each index's; a new item that
  // carries the index's key is one index write of its entry's size.
  test("cost counts every index write (GSI write cost): a full page's write units include each new record's keys-only entry in the newest-first index, 1 WRU", () => {
    expect(RECORD_INDEX_WRU).toBe(1);
    // The fence, lease, progress, watermark and slot (9), and the page's change items (issue 36).
    expect(FULL_PAGE_WRU).toBe(RECORDS_PER_PAGE * (RECORD_WRU + RECORD_INDEX_WRU) + 9 + CHANGE_ITEMS_WRU);
    const writes = millionRecords().lines.find((line) => line.item === "DynamoDB writes")!;
    expect(writes.usd).toBeGreaterThanOrEqual(RECORDS_QUOTED * (RECORD_WRU + RECORD_INDEX_WRU) * DYNAMODB_WRU_USD);
  });

  test("the cap the cost is quoted at is context maxConcurrentRuns' default", () => {
    expect(MAX_CONCURRENT_RUNS_QUOTED).toBe(CONTEXT_DEFAULTS.maxConcurrentRuns);
  });

  test("a page costs 2 Standard transitions per segment of PAGE_TASKS_PER_SEGMENT, plus the continuations", () => {
    const perPage = standardTransitionsPerPage();
    expect(perPage).toBeGreaterThanOrEqual(2 / PAGE_TASKS_PER_SEGMENT);
    // ContinueAsNew adds its own state and the next execution's first RunPages and Route, once per execution.
    expect(perPage).toBeLessThanOrEqual(2 / PAGE_TASKS_PER_SEGMENT + 4 / PAGE_TASKS_PER_EXECUTION);
  });

  test("a weekly audit's cost per connection-month: 4.33 audits of the reference source's default data set (its incremental entities, one page per 100 records), reads the largest part, printed by npm run cost", () => {
    const audits = weeklyAuditConnectionMonth();
    expect(AUDITED_RECORDS).toEqual({ contacts: DEFAULT_SIZES.contacts, leads: DEFAULT_SIZES.leads, tasks: DEFAULT_SIZES.tasks, calls: DEFAULT_SIZES.calls, events: DEFAULT_SIZES.events });
    expect(WEEKLY_AUDITS_PER_MONTH).toBeCloseTo(4.33, 2);
    // Walked as a run whose pipelines and users are one page each (an upper bound by those two pages).
    const pages = AUDIT_ENTITIES.reduce((sum, entity) => sum + Math.ceil(AUDITED_RECORDS[entity] / RECORDS_PER_PAGE), 0);
    expect(audits.run.pages).toBe(pages + 2);
    const usd = (item: string) => audits.lines.find((line) => line.item === item)?.usd ?? 0;
    expect(usd("DynamoDB reads")).toBeGreaterThan(usd("DynamoDB writes"));
    expect(audits.total).toBeGreaterThan(0);
    expect(readFileSync(new URL("../../../bin/cost.ts", import.meta.url), "utf8")).toContain("weeklyAuditConnectionMonth()");
  });

  test(`targets: at most $${TARGET_USD_PER_MILLION_RECORDS.toFixed(3)} per million records, $0.15 over the $1.875 floor of the record writes and their index entries and issue 36's $0.20 for stage history and the change feed; at most $${TARGET_USD_PER_IDLE_CONNECTION_MONTH} per idle connection-month, dispatch included, Step Functions alone and everything (the idle run's writes as test/domain/sync/idle-run-writes.test.ts measures them)`, () => {
    const million = millionRecords();
    expect(RECORDS_QUOTED * RECORD_WRU * DYNAMODB_WRU_USD).toBeCloseTo(1.25, 10);
    expect(RECORDS_QUOTED * (RECORD_WRU + RECORD_INDEX_WRU) * DYNAMODB_WRU_USD).toBeCloseTo(1.875, 10);
    expect(TARGET_USD_PER_MILLION_RECORDS).toBeCloseTo(1.875 + 0.15 + ISSUE_36_FEATURES_USD, 10);
    expect(ISSUE_36_FEATURES_USD).toBeCloseTo(1.6 - 1.4, 10);
    expect(million.total).toBeLessThanOrEqual(TARGET_USD_PER_MILLION_RECORDS);
    expect(million.run.pages).toBeGreaterThanOrEqual(10_000);
    expect(idleConnectionMonth(tickOfFleet).stepFunctions).toBeLessThanOrEqual(TARGET_USD_PER_IDLE_CONNECTION_MONTH);
    expect(idleConnectionMonth(tickOfFleet).total).toBeLessThanOrEqual(TARGET_USD_PER_IDLE_CONNECTION_MONTH);
  });
});
