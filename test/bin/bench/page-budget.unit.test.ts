import { describe, expect, test } from "vitest";
import { pageBudget, type TaskSpan } from "../../../bin/bench/page-budget";

const call = (label: string, startedAt: number, endedAt: number) => ({ label, startedAt, endedAt });
const page = (executionId: string, startedAt: number, endedAt: number): TaskSpan => ({ state: "SyncPage", executionId, startedAt, endedAt });

describe("the bench's page budget", () => {
  // Two pages in segment s1, one in s2; calls overlap in the first page; a log line in the second.
  const budget = pageBudget({
    tasks: [page("s1", 0, 100), page("s1", 110, 200), page("s2", 230, 300), { state: "FinishRun", startedAt: 300, endedAt: 310 }],
    fetches: [call("/leads", 5, 25), call("/leads", 115, 135), call("/calls", 235, 245)],
    dynamodb: [call("GetItem", 5, 15), call("PutItem", 30, 40), call("TransactWriteItems", 50, 90), call("TransactWriteItems", 150, 190), call("TransactWriteItems", 250, 290)],
    logs: [{ at: 195, ms: 2 }],
  });
  const part = (start: string) => budget.parts.find((each) => each.name.startsWith(start))!;

  test("the parts add up to the wall time from the first page task's start to the last one's end", () => {
    expect(budget.wallMs).toBe(300);
    expect(budget.parts.reduce((sum, each) => sum + each.ms, 0)).toBeCloseTo(budget.wallMs, 9);
  });

  test("calls in flight together are counted once, and each call lands on its operation", () => {
    expect(part("calls in flight together").ms).toBe(-10);
    expect(part("DynamoDB TransactWriteItems")).toMatchObject({ ms: 120, count: 3 });
    expect(part("fetch from the source")).toMatchObject({ ms: 50, count: 3 });
  });

  test("the gap between page tasks is split by segment: a change of execution is a boundary", () => {
    expect(part("between page tasks, within a segment")).toMatchObject({ ms: 10, count: 1 });
    expect(part("between page tasks, at a segment boundary")).toMatchObject({ ms: 30, count: 1 });
    expect(budget.boundaries).toBe(1);
  });

  test("logging is taken out of the in-process time it happened in", () => {
    expect(part("logging")).toMatchObject({ ms: 2, count: 1 });
    // Page 2: 90 ms, I/O 115-135 and 150-190 (60 ms), edges 5 + 10: 15 ms between calls, 2 of them logging.
    // Page 1: 100 ms, I/O 5-25 and 30-40 and 50-90 (70 ms), edges 5 + 10: 15 ms. Page 3: 70 ms, I/O 50 ms, edges 5 + 10: 5 ms.
    expect(part("in process between calls").ms).toBe(15 + 13 + 5);
  });
});
