import { describe, expect, test } from "vitest";
import { MAX_SLOT_LEAD_MS, SLOT_LATE_MS } from "../../lambdas/core/limits";
import { nextSlotLead, PageReadAheads, type ReadAhead } from "../../lambdas/sync/page-read-ahead";

const readAhead = (slot: number): ReadAhead => ({ connection: Promise.resolve(null), slot: Promise.resolve(slot), leadMs: 20 });
const page = (n: number) => ({ runId: "run-1", entity: "leads", page: n });

describe("PageReadAheads", () => {
  test("a reserved slot is used once: the page's task takes its read-ahead, and a retry of that task finds none (it acquires afresh)", async () => {
    const aheads = new PageReadAheads();
    aheads.put(page(2), readAhead(1_000));
    expect(await aheads.take(page(2))?.slot).toBe(1_000);
    expect(aheads.take(page(2))).toBeUndefined();
  });

  test("a read-ahead is only for its run, entity and page", () => {
    const aheads = new PageReadAheads();
    aheads.put(page(2), readAhead(1_000));
    expect(aheads.take(page(3))).toBeUndefined();
    expect(aheads.take({ ...page(2), entity: "contacts" })).toBeUndefined();
    expect(aheads.take({ ...page(2), runId: "run-2" })).toBeUndefined();
    expect(aheads.take(page(2))).toBeDefined();
  });

  test("bounded: beyond maxPages the oldest read-ahead is dropped", () => {
    const aheads = new PageReadAheads(2);
    aheads.put(page(1), readAhead(1));
    aheads.put(page(2), readAhead(2));
    aheads.put(page(3), readAhead(3));
    expect(aheads.take(page(1))).toBeUndefined();
    expect(aheads.take(page(2))).toBeDefined();
    expect(aheads.take(page(3))).toBeDefined();
  });
});

describe("nextSlotLead", () => {
  test("the next reservation aims half the stale bound late: a slot used 12 ms late moves the lead up, one used early moves it down", () => {
    expect(nextSlotLead(20, 12)).toBe(20 + 12 - SLOT_LATE_MS / 2);
    expect(nextSlotLead(20, -8)).toBe(20 - 8 - SLOT_LATE_MS / 2);
  });

  test("the lead stays within 0 and MAX_SLOT_LEAD_MS", () => {
    expect(nextSlotLead(3, -50)).toBe(0);
    expect(nextSlotLead(MAX_SLOT_LEAD_MS, 5_000)).toBe(MAX_SLOT_LEAD_MS);
  });
});
