import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { SourceRecord } from "../../../bin/reference-source/records";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import type { StageKind } from "../../../lambdas/domain/core/entities";
import { preparePage, type PageFingerprint } from "../../../lambdas/domain/ingestion/prepare-page";
import { createHttpSourceClient } from "../../../lambdas/adapters/source-http/http-source-client";

const NOW = new Date("2026-06-01T12:00:00Z");
const ENDPOINTS = ["pipelines", "users", "contacts", "leads", "tasks", "calls", "events"] as const;
const INCREMENTAL = new Set(["contacts", "leads", "tasks", "calls", "events"]);

interface Envelope {
  data: SourceRecord[];
  has_more: boolean;
  page: number;
  limit: number;
}

let source: ReferenceSource;
beforeAll(async () => {
  source = await startReferenceSource({ seed: 42, now: NOW });
});
afterAll(() => source.close());

async function getPage(path: string, query: Record<string, string> = {}): Promise<{ status: number; body: Envelope }> {
  const url = new URL(`${source.url}${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const response = await fetch(url, { headers: { authorization: `Bearer ${source.token}`, accept: "application/json" } });
  return { status: response.status, body: (await response.json()) as Envelope };
}

/** Pages 1, 2, ... until has_more is false. */
async function readAll(path: string, limit: number, extra: Record<string, string> = {}): Promise<Envelope[]> {
  const pages: Envelope[] = [];
  for (let page = 1; ; page += 1) {
    const { status, body } = await getPage(path, { limit: String(limit), page: String(page), ...extra });
    expect(status).toBe(200);
    pages.push(body);
    if (!body.has_more) return pages;
  }
}

describe("paging rules", () => {
  test.each([100, 7])("pages hold at most limit=%i records; has_more is true on every page but the last", async (limit) => {
    const pages = await readAll("/leads", limit);
    expect(pages.length).toBe(Math.ceil(source.dataset.leads.length / limit));
    pages.forEach((page, i) => {
      expect(page.data.length).toBeLessThanOrEqual(limit);
      expect(page.has_more).toBe(i < pages.length - 1);
      expect(page.data.length).toBeGreaterThan(0); // has_more never points at an empty page
    });
  });

  test("has_more is false on the last page when the count is an exact multiple of limit (no empty page after it)", async () => {
    const exact = await startReferenceSource({ seed: 3, now: NOW, sizes: { leads: 200, contacts: 10, tasks: 0, calls: 0, events: 0 } });
    try {
      const response = await fetch(`${exact.url}/leads?limit=100&page=2`, { headers: { authorization: `Bearer ${exact.token}` } });
      const body = (await response.json()) as Envelope;
      expect(body.data).toHaveLength(100);
      expect(body.has_more).toBe(false);
    } finally {
      await exact.close();
    }
  });

  test("envelope: { data, has_more, page, limit }; limit defaults to 100 and page to 1", async () => {
    const { status, body } = await getPage("/contacts");
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["data", "has_more", "limit", "page"]);
    expect(body).toMatchObject({ page: 1, limit: 100, has_more: true });
    expect(body.data).toHaveLength(100);
  });

  test("a page past the end: 200 with empty data and has_more false, never 404", async () => {
    const { status, body } = await getPage("/leads", { page: "9999" });
    expect(status).toBe(200);
    expect(body).toEqual({ data: [], has_more: false, page: 9999, limit: 100 });
  });

  test.each(ENDPOINTS)("walking every page of /%s yields each record exactly once", async (endpoint) => {
    const pages = await readAll(`/${endpoint}`, 100);
    const ids = pages.flatMap((page) => page.data.map((record) => record.id));
    expect(ids).toHaveLength(source.dataset[endpoint].length);
    expect(new Set(ids)).toEqual(new Set(source.dataset[endpoint].map((record) => record.id)));
  });

  test("the service's own client and page preparation accept every page of every endpoint (no repeat, no backward step)", async () => {
    const client = createHttpSourceClient();
    const connection = { baseUrl: source.url, token: source.token };
    const stageKinds = new Map(
      source.dataset.pipelines.map((p) => [p.id, new Map(p.stages.map((s) => [s.id, s.kind as StageKind]))]),
    );
    for (const entity of ENDPOINTS) {
      let previous: PageFingerprint | null = null;
      let records = 0;
      for (let page = 1; ; page += 1) {
        const fetched = await client.fetchPage(connection, {
          path: `/${entity}`,
          page,
          ...(INCREMENTAL.has(entity) ? { updatedSince: "2025-01-01T00:00:00+00:00" } : {}),
        });
        const prepared = preparePage({ entity, page, data: fetched.data, previous, stageKinds });
        expect(prepared.unresolvedLeadIds, entity).toEqual([]);
        records += prepared.records;
        previous = prepared.fingerprint;
        if (!fetched.hasMore) break;
      }
      expect(records, entity).toBe(source.dataset[entity].length);
    }
  });
});
