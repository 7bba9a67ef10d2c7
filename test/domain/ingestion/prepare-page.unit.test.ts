import { describe, expect, test } from "vitest";
import { PageValidationError, PaginationError } from "../../../lambdas/domain/core/errors";
import type { StageKinds } from "../../../lambdas/domain/core/ports/record-store";
import { lossReasonId } from "../../../lambdas/domain/source-contract/loss-reason-id";
import { preparePage } from "../../../lambdas/domain/ingestion/prepare-page";
import {
  eventRecord,
  leadRecord,
  pipelineRecord,
  stageRecord,
  taskRecord,
} from "../../builders/source-records";

const noStages: StageKinds = new Map();
const stageKinds: StageKinds = new Map([
  ["p1", new Map([["s-open", "open"], ["s-won", "won"], ["s-lost", "lost"]] as const)],
  ["p-empty", new Map()],
]);

function prepare(entity: Parameters<typeof preparePage>[0]["entity"], data: unknown[], extra: Partial<Parameters<typeof preparePage>[0]> = {}) {
  return preparePage({ entity, page: 1, data, previous: null, stageKinds: noStages, ...extra });
}

const docsOf = (page: ReturnType<typeof preparePage>, collection: string) =>
  page.writes.filter((write) => write.collection === collection).map((write) => write.doc);

describe("an id repeated within one page", () => {
  test("an id repeated within one page is written once: the last occurrence wins", () => {
    const page = prepare("tasks", [
      taskRecord({ id: "t1", text: "first", updated_at: "2026-01-01T00:00:00Z" }),
      taskRecord({ id: "t2", updated_at: "2026-01-01T00:00:01Z" }),
      taskRecord({ id: "t1", text: "second", updated_at: "2026-01-01T00:00:02Z" }),
    ]);
    expect(page.records).toBe(2);
    const tasks = docsOf(page, "tasks");
    expect(tasks.map((task) => task["id"])).toEqual(["t2", "t1"]);
    expect(tasks.find((task) => task["id"] === "t1")?.["text"]).toBe("second");
  });

  test("a pipeline repeated within one page keeps only the last occurrence's stages", () => {
    const page = prepare("pipelines", [
      pipelineRecord({ id: "p1", stages: [stageRecord({ id: "old", kind: "open" })] }),
      pipelineRecord({ id: "p1", stages: [stageRecord({ id: "new", kind: "won" })] }),
    ]);
    expect(docsOf(page, "stages").map((stage) => stage["id"])).toEqual(["new"]);
  });
});

describe("a page is all or nothing", () => {
  test("a page is all or nothing: one bad record fails the page, naming record, field and rule", () => {
    const run = () => prepare("leads", [leadRecord({ id: "ok" }), leadRecord({ id: "bad", price: "abc" })]);
    expect(run).toThrow(PageValidationError);
    try {
      run();
    } catch (error) {
      expect(error).toMatchObject({ recordId: "bad", field: "price" });
      expect((error as PageValidationError).rule).toMatch(/number or a numeric string/);
    }
  });
});

describe("paging rules that need the page's content", () => {
  const leads = (...stamps: string[]) => stamps.map((stamp, i) => leadRecord({ id: `l${i}-${stamp}`, updated_at: stamp }));

  test("a page whose ids exactly match the previous page fails with a pagination error", () => {
    const first = prepare("leads", leads("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"));
    expect(() =>
      prepare("leads", leads("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"), { page: 2, previous: first.fingerprint }),
    ).toThrow(PaginationError);
  });

  test("a page with different ids after the previous page is accepted", () => {
    const first = prepare("leads", leads("2026-01-01T00:00:00Z"));
    const second = prepare("leads", [leadRecord({ id: "other", updated_at: "2026-01-01T00:00:05Z" })], {
      page: 2,
      previous: first.fingerprint,
    });
    expect(second.records).toBe(1);
  });

  test("records must ascend by the compared timestamp within a page: a backwards step fails", () => {
    expect(() => prepare("leads", leads("2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"))).toThrow(PaginationError);
  });

  test("records must ascend across pages: the first record of page N+1 is not before the last of page N", () => {
    const first = prepare("leads", leads("2026-01-05T00:00:00Z"));
    expect(() =>
      prepare("leads", [leadRecord({ id: "late", updated_at: "2026-01-04T23:59:59Z" })], {
        page: 2,
        previous: first.fingerprint,
      }),
    ).toThrow(/steps backwards/);
  });

  test("equal timestamps are ascending (the rule is >=)", () => {
    const page = prepare("leads", leads("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"));
    expect(page.records).toBe(2);
  });

  test("a record with a null timestamp is skipped by the ordering check", () => {
    const page = prepare("leads", [
      leadRecord({ id: "a", updated_at: "2026-01-02T00:00:00Z" }),
      leadRecord({ id: "b", updated_at: "not a date" }),
      leadRecord({ id: "c", updated_at: "2026-01-03T00:00:00Z" }),
    ]);
    expect(page.records).toBe(3);
    expect(page.maxCompared).toBe("2026-01-03T00:00:00.000Z");
  });

  test("the ordering position carries over a page whose records all have null timestamps", () => {
    const first = prepare("leads", leads("2026-01-05T00:00:00Z"));
    const empty = prepare("leads", [leadRecord({ id: "n", updated_at: null })], { page: 2, previous: first.fingerprint });
    expect(empty.fingerprint.lastCompared).toBe("2026-01-05T00:00:00.000Z");
    expect(() =>
      prepare("leads", [leadRecord({ id: "x", updated_at: "2026-01-01T00:00:00Z" })], { page: 3, previous: empty.fingerprint }),
    ).toThrow(PaginationError);
  });

  test("pipelines and users are full lists: their order is not checked", () => {
    const page = prepare("pipelines", [pipelineRecord({ id: "b" }), pipelineRecord({ id: "a" })]);
    expect(page.records).toBe(2);
    expect(page.maxCompared).toBeNull();
  });

  test("events are compared by updated_at when sent, else created_at", () => {
    const page = prepare("events", [
      eventRecord({ id: "e1", created_at: "2026-01-01T00:00:00Z", updated_at: undefined }),
      eventRecord({ id: "e2", created_at: "2025-01-01T00:00:00Z", updated_at: "2026-01-02T00:00:00Z" }),
    ]);
    expect(page.maxCompared).toBe("2026-01-02T00:00:00.000Z");
  });

  test("event updated_at is read only for the watermark, not stored", () => {
    const page = prepare("events", [eventRecord({ id: "e1", updated_at: "2026-01-02T00:00:00Z" })]);
    expect(docsOf(page, "events")[0]).not.toHaveProperty("updated_at");
  });
});

describe("won/lost derivation", () => {
  const classify = (overrides: Record<string, unknown>) => {
    const page = prepare("leads", [leadRecord({ id: "l", ...overrides })], { stageKinds });
    return { lead: docsOf(page, "leads")[0], unresolved: page.unresolvedLeadIds };
  };

  test("won/lost: a lead whose stage has kind won is won", () => {
    expect(classify({ pipeline_id: "p1", stage_id: "s-won" })).toMatchObject({
      lead: { is_won: true, is_lost: false },
      unresolved: [],
    });
  });

  test("won/lost: a lead whose stage has kind lost is lost", () => {
    expect(classify({ pipeline_id: "p1", stage_id: "s-lost" })).toMatchObject({
      lead: { is_won: false, is_lost: true },
      unresolved: [],
    });
  });

  test("won/lost: a lead in an open stage is neither and is resolved", () => {
    expect(classify({ pipeline_id: "p1", stage_id: "s-open" })).toMatchObject({
      lead: { is_won: false, is_lost: false },
      unresolved: [],
    });
  });

  test("won/lost: the source's is_won and is_lost are ignored", () => {
    expect(classify({ pipeline_id: "p1", stage_id: "s-open", is_won: true, is_lost: true }).lead).toMatchObject({
      is_won: false,
      is_lost: false,
    });
  });

  test.each([
    ["an unknown stage", { pipeline_id: "p1", stage_id: "nope" }],
    ["an unknown pipeline", { pipeline_id: "p-unknown", stage_id: "s-won" }],
    ["a pipeline with no stages", { pipeline_id: "p-empty", stage_id: "s-won" }],
    ["no stage at all", { pipeline_id: "p1", stage_id: null }],
    ["no pipeline at all", { pipeline_id: null, stage_id: "s-won" }],
  ])("won/lost: a lead with %s is neither won nor lost and is counted as unresolved", (_, overrides) => {
    expect(classify(overrides)).toEqual({
      lead: expect.objectContaining({ is_won: false, is_lost: false }),
      unresolved: ["l"],
    });
  });
});

describe("derived loss reasons", () => {
  test("loss reasons are de-duplicated by text and written before the leads that point at them", () => {
    const page = prepare("leads", [
      leadRecord({ id: "a", loss_reason: "Too expensive", updated_at: "2026-01-01T00:00:00Z" }),
      leadRecord({ id: "b", loss_reason: "Too expensive", updated_at: "2026-01-01T00:00:01Z" }),
      leadRecord({ id: "c", loss_reason: "No budget", updated_at: "2026-01-01T00:00:02Z" }),
    ]);
    expect(page.writes.map((write) => write.collection)).toEqual(["loss_reasons", "loss_reasons", "leads", "leads", "leads"]);
    expect(docsOf(page, "loss_reasons")).toEqual([
      { id: lossReasonId("Too expensive"), text: "Too expensive" },
      { id: lossReasonId("No budget"), text: "No budget" },
    ]);
    const leads = docsOf(page, "leads");
    expect(leads[0]?.["loss_reason_id"]).toBe(leads[1]?.["loss_reason_id"]);
    expect(leads[2]?.["loss_reason_id"]).toBe(lossReasonId("No budget"));
  });

  test("identical text maps to the same loss reason id across pages and connections", () => {
    expect(lossReasonId("Too expensive")).toBe(lossReasonId("Too expensive"));
    expect(lossReasonId("Too expensive")).not.toBe(lossReasonId("too expensive"));
  });

  test("a lead without a loss reason has loss_reason_id null and derives nothing", () => {
    const page = prepare("leads", [leadRecord({ id: "a", loss_reason: null })]);
    expect(docsOf(page, "loss_reasons")).toEqual([]);
    expect(docsOf(page, "leads")[0]?.["loss_reason_id"]).toBeNull();
  });
});

describe("stages", () => {
  test("stages come from /pipelines pages, keyed by pipeline and stage id", () => {
    const page = prepare("pipelines", [
      pipelineRecord({ id: "p1", stages: [stageRecord({ id: "s1", kind: "open" })] }),
      pipelineRecord({ id: "p2", stages: [stageRecord({ id: "s1", kind: "won" })] }),
    ]);
    const stages = page.writes.filter((write) => write.collection === "stages");
    expect(stages.map((write) => write.key)).toEqual([["p1", "s1"], ["p2", "s1"]]);
    expect(stages.map((write) => write.doc["pipeline_id"])).toEqual(["p1", "p2"]);
    expect(page.stages).toBe(2);
    expect(docsOf(page, "pipelines")[0]).not.toHaveProperty("stages");
  });

  test("a stage repeated within its pipeline is written once: the last occurrence wins", () => {
    const page = prepare("pipelines", [
      pipelineRecord({ id: "p1", stages: [stageRecord({ id: "s1", name: "A" }), stageRecord({ id: "s1", name: "B" })] }),
    ]);
    expect(docsOf(page, "stages")).toEqual([expect.objectContaining({ id: "s1", name: "B" })]);
  });
});

describe("the watermark never passes the present", () => {
  // The page's clock 2026-11-27T12:00:00Z plus the 10-minute allowance.
  const latestTrusted = "2026-11-27T12:10:00.000Z";

  test("record.updated-at-future: a far-future updated_at is stored as sent, counted by id with its rule, and never moves the watermark", () => {
    const page = prepare(
      "leads",
      [leadRecord({ id: "today", updated_at: "2026-11-27T11:59:00Z" }), leadRecord({ id: "placeholder", updated_at: "9999-12-31T23:59:59Z" })],
      { latestTrusted },
    );
    expect(page.maxCompared).toBe("2026-11-27T11:59:00.000Z");
    expect(docsOf(page, "leads").map((doc) => [doc["id"], doc["updated_at"]])).toEqual([["today", "2026-11-27T11:59:00.000Z"], ["placeholder", "9999-12-31T23:59:59.000Z"]]);
    // (Both leads also name a stage no /pipelines page listed yet: reference.stage, beside the point here.)
    expect(page.findings.filter((finding) => finding.rule !== "reference.stage")).toEqual([
      { rule: "record.updated-at-future", severity: "warning", ids: ["placeholder"], detail: expect.stringMatching(/^record placeholder: updated_at is "9999-12-31T23:59:59Z", later than the service's clock plus 10 minutes/) },
    ]);
    // Its lineage keeps the rule, for explain.
    expect(page.ruleIdsById.get("placeholder")).toEqual(["record.updated-at-future", "reference.stage"]);
    expect(page.ruleIdsById.get("today")).toEqual(["reference.stage"]);
  });

  test("record.updated-at-future at its edges: exactly the clock plus the allowance moves the watermark, one second past it does not", () => {
    const atBound = prepare("contacts", [contact("at-bound", "2026-11-27T12:10:00Z")], { latestTrusted });
    expect(atBound.maxCompared).toBe("2026-11-27T12:10:00.000Z");
    expect(atBound.findings).toEqual([]);
    const past = prepare("contacts", [contact("at-bound", "2026-11-27T12:10:00Z"), contact("past", "2026-11-27T12:10:01Z")], { latestTrusted });
    expect(past.maxCompared).toBe("2026-11-27T12:10:00.000Z");
    expect(past.findings.map((finding) => [finding.rule, finding.ids])).toEqual([["record.updated-at-future", ["past"]]]);
    // An offset is read as an instant: 13:10:01+01:00 is 12:10:01Z, past the bound.
    const offset = prepare("contacts", [contact("offset", "2026-11-27T13:10:01+01:00")], { latestTrusted });
    expect(offset.maxCompared).toBeNull();
  });

  test("record.updated-at-future on events: created_at decides when updated_at is not sent", () => {
    const page = prepare("events", [eventRecord({ id: "e-future", created_at: "9999-12-31T23:59:59Z", updated_at: undefined })], { latestTrusted });
    expect(page.maxCompared).toBeNull();
    expect(page.findings).toEqual([expect.objectContaining({ rule: "record.updated-at-future", ids: ["e-future"], detail: expect.stringMatching(/^record e-future: created_at is/) })]);
  });

  test("a record dated year 0000 or 0001 is not in the future: it may move an empty watermark", () => {
    const page = prepare("contacts", [contact("year-0", "0000-01-01T00:00:00Z"), contact("year-1", "0001-01-01T00:00:00Z")], { latestTrusted });
    expect(page.maxCompared).toBe("0001-01-01T00:00:00.000Z");
    expect(page.findings).toEqual([]);
  });
});

function contact(id: string, updatedAt: string) {
  return { id, name: id, updated_at: updatedAt };
}
