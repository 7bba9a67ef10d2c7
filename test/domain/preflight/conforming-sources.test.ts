import { describe, expect, test } from "vitest";
import { startReferenceSource } from "../../../bin/reference-source/start-reference-source";
import { exitCodeOf } from "../../../lambdas/domain/preflight/report";
import { KIT_RULES } from "../../../lambdas/domain/source-contract/rules/catalog";
import { runPreflight } from "../../../lambdas/domain/preflight/run-preflight";
import { manualTime } from "../../support/manual-clock";
import { startPreflightSource } from "../../support/preflight-source";
import { runKitAgainst } from "./preflight-harness";

/** A correct source gives exit 0 and no finding at all, warnings included. */
describe("sources that keep every rule", () => {
  test("the reference source (npm run source, small sizes): exit 0, no finding, every rule checked", async () => {
    const source = await startReferenceSource({ sizes: { contacts: 250, leads: 180, tasks: 60, calls: 60, events: 150 }, recordRequests: true });
    try {
      const result = await runPreflight({ baseUrl: source.url, token: source.token, fetch: (url, init) => fetch(url, init), ...manualTime() });
      expect(result.report.findings).toEqual([]);
      expect(result.report.conforms).toBe(true);
      expect(exitCodeOf(result.report)).toBe(0);
      expect(result.report.checked).toEqual(KIT_RULES.map((r) => r.id)); // every rule ran, in the catalog's order
      // GET only, every request.
      expect(new Set(source.requests.map((r) => r.method))).toEqual(new Set(["GET"]));
    } finally {
      await source.close();
    }
  });

  test("the builder's correct source, pages on several endpoints: exit 0, no finding", async () => {
    const run = await runKitAgainst({});
    expect(run.report.findings).toEqual([]);
    expect(run.exitCode).toBe(0);
  });

  test("a minimal correct source (the four required endpoints, a couple of records, optional ones 404): exit 0, no finding", async () => {
    const run = await runKitAgainst({ sizes: { contacts: 2, leads: 2 }, notImplemented: ["tasks", "calls", "events"] });
    expect(run.report.findings).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(run.report.base_url).toBe(run.source.baseUrl);
  });

  test("a trailing slash on the base URL is stripped, as the service does", async () => {
    const source = await startPreflightSource({ sizes: { contacts: 2, leads: 2 } });
    try {
      const result = await runPreflight({ baseUrl: `${source.baseUrl}/`, token: source.token, fetch: (url, init) => fetch(url, init), ...manualTime() });
      expect(result.report.base_url).toBe(source.baseUrl);
      expect(result.report.findings).toEqual([]);
      expect(source.requests.every((r) => !r.path.startsWith("//"))).toBe(true);
    } finally {
      await source.close();
    }
  });
});

describe("--max-pages", () => {
  test("1: page 1 of each endpoint only (plus the probes), and a cut crawl is no finding", async () => {
    const run = await runKitAgainst({}, { maxPages: 1 });
    expect(run.report.findings).toEqual([]);
    const crawlPages = run.source.requests.filter((r) => r.query["updated_since"] === "1970-01-01T00:00:00+00:00").map((r) => r.query["page"]);
    expect(new Set(crawlPages)).toEqual(new Set(["1"]));
  });
});
