import { describe, expect, test } from "vitest";
import { MAX_RECORD_DEPTH } from "../../../lambdas/domain/core/limits";
import { KIT_RULES } from "../../../lambdas/domain/source-contract/rules/catalog";
import { customFieldsOfDepth } from "../../builders/hostile-records";
import type { SourceKnobs } from "../../support/preflight-source";
import { runKitAgainst } from "./preflight-harness";

/**
 * For every rule id: a loopback source that breaks exactly that rule (one knob
 * of the correct source builder), and the kit reports that rule with its
 * severity and the exit status that severity gives. `also` lists the few
 * findings one mistake unavoidably causes too.
 */
interface Case {
  readonly rule: string;
  readonly knobs: SourceKnobs;
  /** Where the finding is; undefined for the rate rules, whose 429s fall where the source's counter says. */
  readonly endpoint?: string;
  readonly also?: readonly string[];
}

const CASES: readonly Case[] = [
  { rule: "auth.missing-token-401", knobs: { acceptMissingToken: true }, endpoint: "/pipelines" },
  { rule: "auth.wrong-token-401", knobs: { tokenCompareChars: 20 }, endpoint: "/pipelines" },
  { rule: "endpoint.required-present", knobs: { notImplemented: ["leads"] }, endpoint: "/leads" },
  { rule: "endpoint.optional-200-or-404", knobs: { status: { tasks: 403 } }, endpoint: "/tasks" },
  { rule: "endpoint.empty-is-200", knobs: { emptyAs404: true }, endpoint: "/contacts" },
  {
    rule: "query.updated-since",
    knobs: { refuseSince: "zero-offset" },
    endpoint: "/contacts",
    also: ["endpoint.required-present", "endpoint.optional-200-or-404"],
  },
  { rule: "query.limit", knobs: { refuseQuery: { entity: "users", param: "limit" } }, endpoint: "/users", also: ["endpoint.required-present"] },
  { rule: "query.page", knobs: { refuseQuery: { entity: "contacts", param: "page" } }, endpoint: "/contacts", also: ["paging.has-more-successor"] },
  { rule: "envelope.json", knobs: { nonJson: "users" }, endpoint: "/users" },
  { rule: "envelope.utf8", knobs: { latin1: "users" }, endpoint: "/users" },
  { rule: "envelope.data-array", knobs: { dataNotArray: "users" }, endpoint: "/users" },
  { rule: "envelope.has-more-boolean", knobs: { hasMoreAs: { entity: "contacts", mode: "string" } }, endpoint: "/contacts" },
  { rule: "paging.limit-honoured", knobs: { pageSize: { contacts: 150 } }, endpoint: "/contacts" },
  { rule: "paging.no-repeat-page", knobs: { repeatPage: "contacts" }, endpoint: "/contacts" },
  { rule: "paging.no-duplicate-record", knobs: { duplicateRecord: "contacts" }, endpoint: "/contacts" },
  { rule: "paging.has-more-successor", knobs: { hasMoreOnLastPage: "contacts" }, endpoint: "/contacts" },
  { rule: "paging.page-cap", knobs: { sizes: { events: 5001 }, pageSize: { events: 1 } }, endpoint: "/events" },
  { rule: "incremental.inclusive", knobs: { sinceExclusive: true }, endpoint: "/contacts" },
  { rule: "incremental.filtered", knobs: { sinceIgnored: true }, endpoint: "/contacts" },
  { rule: "incremental.ascending", knobs: { order: "descending-within-page" }, endpoint: "/contacts" },
  { rule: "incremental.offset-honoured", knobs: { sinceOffsetIgnored: true }, endpoint: "/contacts" },
  { rule: "record.depth", knobs: { patches: [{ entity: "contacts", index: 5, overrides: { custom_fields: customFieldsOfDepth(MAX_RECORD_DEPTH + 1) } }] }, endpoint: "/contacts" },
  { rule: "record.id", knobs: { patches: [{ entity: "contacts", index: 5, overrides: { id: "" } }] }, endpoint: "/contacts" },
  { rule: "record.id-unicode", knobs: { patches: [{ entity: "contacts", index: 5, overrides: { id: "contact-\ud800" } }] }, endpoint: "/contacts" },
  { rule: "record.updated-at", knobs: { patches: [{ entity: "contacts", index: 5, overrides: { updated_at: "last tuesday" } }] }, endpoint: "/contacts" },
  { rule: "record.fields", knobs: { patches: [{ entity: "users", index: 1, overrides: { name: 42 } }] }, endpoint: "/users" },
  { rule: "pipeline.stages", knobs: { patches: [{ entity: "pipelines", index: 1, overrides: { stages: undefined } }] }, endpoint: "/pipelines" },
  { rule: "pipeline.sort-integer", knobs: { patches: [{ entity: "pipelines", index: 1, overrides: { sort: 1.5 } }] }, endpoint: "/pipelines" },
  {
    rule: "stage.kind",
    knobs: { patches: [{ entity: "pipelines", index: 1, overrides: { stages: [{ id: "renewal-open", kind: "closed" }] } }] },
    endpoint: "/pipelines",
  },
  { rule: "lead.price-numeric", knobs: { patches: [{ entity: "leads", index: 3, overrides: { price: "abc" } }] }, endpoint: "/leads" },
  { rule: "call.association", knobs: { patches: [{ entity: "calls", index: 1, overrides: { lead_id: null, contact_id: null } }] }, endpoint: "/calls" },
  { rule: "call.duration-integer", knobs: { patches: [{ entity: "calls", index: 1, overrides: { duration_seconds: "95" } }] }, endpoint: "/calls" },
  { rule: "event.lead-id", knobs: { patches: [{ entity: "events", index: 1, overrides: { lead_id: undefined } }] }, endpoint: "/events" },
  { rule: "record.timestamp-format", knobs: { patches: [{ entity: "leads", index: 3, overrides: { closed_at: "31/12/2026" } }] }, endpoint: "/leads" },
  { rule: "record.text-truncated", knobs: { patches: [{ entity: "contacts", index: 2, overrides: { name: "n".repeat(256) } }] }, endpoint: "/contacts" },
  { rule: "reference.stage", knobs: { patches: [{ entity: "leads", index: 3, overrides: { stage_id: "stage-gone" } }] }, endpoint: "/leads" },
  { rule: "reference.user", knobs: { patches: [{ entity: "contacts", index: 3, overrides: { responsible_user_id: "user-gone" } }] }, endpoint: "/contacts" },
  { rule: "rate.declared", knobs: { throttleEvery: 7 } },
  { rule: "rate.retry-after", knobs: { throttleEvery: 7, retryAfter: null }, also: ["rate.declared"] },
  { rule: "rate.retries-exhausted", knobs: { status: { tasks: 429 } }, endpoint: "/tasks", also: ["endpoint.optional-200-or-404", "rate.declared"] },
  { rule: "error.body", knobs: { errorBodyText: true }, endpoint: "/pipelines" },
];

const severityOf = (id: string) => KIT_RULES.find((r) => r.id === id)!.severity;

describe("every rule id, broken alone by a loopback source, is reported with its severity and exit status", () => {
  test("every rule of the kit has a case here", () => {
    expect(CASES.map((c) => c.rule).sort()).toEqual(KIT_RULES.map((r) => r.id).sort());
  });

  for (const { rule, knobs, endpoint, also = [] } of CASES) {
    test(rule, async () => {
      const run = await runKitAgainst(knobs);
      const finding = run.report.findings.find((f) => f.rule === rule && (endpoint === undefined || f.endpoint === endpoint));
      expect(finding, JSON.stringify(run.report.findings, null, 1)).toMatchObject({ rule, severity: severityOf(rule) });
      expect(finding!.request).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\//);
      expect([...new Set(run.report.findings.map((f) => f.rule))].sort()).toEqual([rule, ...also].sort());
      expect(run.report.checked).toContain(rule);
      const anyError = [rule, ...also].some((id) => severityOf(id) === "error");
      expect(run.report.conforms).toBe(!anyError);
      expect(run.exitCode).toBe(anyError ? 1 : 0);
      expect(JSON.stringify(run.report)).not.toContain(run.source.token);
    }, 60_000);
  }

  test("incremental.ascending: a step back from one page to the next is found too", async () => {
    const run = await runKitAgainst({ order: "pages-reversed" });
    expect(new Set(run.report.findings.map((f) => f.rule))).toEqual(new Set(["incremental.ascending"]));
    expect(run.report.findings.find((f) => f.endpoint === "/contacts")!.detail).toMatch(/from page \d+ to page \d+/);
  });

  test("auth.missing-token-401: checked on every endpoint, so one route without auth is found", async () => {
    const run = await runKitAgainst({ acceptMissingToken: "leads" });
    expect(run.report.findings.map((f) => [f.rule, f.endpoint])).toEqual([["auth.missing-token-401", "/leads"]]);
    expect(run.exitCode).toBe(1);
  });

  test("one finding per rule and endpoint: the first example, then how many more", async () => {
    const run = await runKitAgainst({
      patches: [3, 4, 5].map((index) => ({ entity: "contacts" as const, index, overrides: { responsible_user_id: `user-gone-${index}` } })),
    });
    expect(run.report.findings).toHaveLength(1);
    expect(run.report.findings[0]!.detail).toMatch(/^record contact-4: responsible_user_id user-gone-3 .* \(and 2 more like it\)$/);
  });

  test("record.text-truncated: nested text too (a stage's color, a lead's utm), named by its path", async () => {
    const run = await runKitAgainst({
      patches: [
        { entity: "pipelines", index: 1, overrides: { stages: [{ id: "renewal-open", kind: "open", color: "#".repeat(21) }] } },
        { entity: "leads", index: 0, overrides: { utm: { campaign: "c".repeat(501) } } },
      ],
    });
    expect(run.report.findings.map((f) => [f.rule, f.endpoint, f.detail.split(" is longer")[0]])).toEqual([
      ["record.text-truncated", "/pipelines", "record pipeline-2: stages[0].color"],
      ["record.text-truncated", "/leads", "record lead-1: utm.campaign"],
    ]);
    expect(run.exitCode).toBe(0);
  });

  test("a task linked to nothing is no finding: the spec accepts it (the reference source serves a few)", async () => {
    const run = await runKitAgainst({ patches: [{ entity: "tasks", index: 1, overrides: { lead_id: null, contact_id: null } }] });
    expect(run.report.findings).toEqual([]);
  });

  test("incremental.inclusive: a source that refuses updated_since written with Z is told to accept it", async () => {
    const run = await runKitAgainst({ refuseSince: "zulu" });
    expect(new Set(run.report.findings.map((f) => f.rule))).toEqual(new Set(["incremental.inclusive"]));
    expect(run.report.findings[0]!.detail).toMatch(/^updated_since=\S+Z got 400: accept ISO-8601 with Z/);
  });

  test("incremental.offset-honoured: a source that refuses a non-zero offset is told to accept any", async () => {
    const run = await runKitAgainst({ refuseSince: "non-zero-offset" });
    expect(new Set(run.report.findings.map((f) => f.rule))).toEqual(new Set(["incremental.offset-honoured"]));
    expect(run.report.findings[0]!.detail).toMatch(/^updated_since=\S+\+05:30 got 400: accept any offset/);
    expect(run.exitCode).toBe(1);
  });

  test("envelope.has-more-boolean: a missing has_more is an error too (the service stops paging there)", async () => {
    const run = await runKitAgainst({ hasMoreAs: { entity: "contacts", mode: "missing" } });
    expect(new Set(run.report.findings.map((f) => f.rule))).toEqual(new Set(["envelope.has-more-boolean"]));
    expect(run.exitCode).toBe(1);
  });
});
