import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { comparedAt } from "../../../bin/reference-source/endpoints";
import type { SourceRecord } from "../../../bin/reference-source/records";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import { formatTimestamp } from "../../../bin/reference-source/timestamps";

const NOW = new Date("2026-06-01T12:00:00Z");
const INCREMENTAL = ["contacts", "leads", "tasks", "calls", "events"] as const;

interface Envelope {
  data: SourceRecord[];
  has_more: boolean;
}

let source: ReferenceSource;
beforeAll(async () => {
  source = await startReferenceSource({
    seed: 11,
    now: NOW,
    sizes: { contacts: 700, leads: 600, tasks: 400, calls: 400, events: 900 },
  });
});
afterAll(() => source.close());

async function get(path: string, query: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${source.url}${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const response = await fetch(url, { headers: { authorization: `Bearer ${source.token}` } });
  return { status: response.status, body: await response.json() };
}

async function readAll(path: string, query: Record<string, string>): Promise<Envelope[]> {
  const pages: Envelope[] = [];
  for (let page = 1; ; page += 1) {
    const { status, body } = await get(path, { ...query, page: String(page) });
    expect(status).toBe(200);
    pages.push(body as Envelope);
    if (!(body as Envelope).has_more) return pages;
  }
}

/** The compared instant of the record in the middle of the endpoint's history. */
function midpoint(endpoint: (typeof INCREMENTAL)[number]): number {
  const instants = source.dataset[endpoint].map(comparedAt).sort((a, b) => a - b);
  return instants[Math.floor(instants.length / 2)] as number;
}

describe("incremental rules", () => {
  test.each(INCREMENTAL)(
    "/%s: exactly the records with a compared timestamp >= updated_since, ascending across pages, ties by id",
    async (endpoint) => {
      const since = midpoint(endpoint);
      const pages = await readAll(`/${endpoint}`, { limit: "37", updated_since: formatTimestamp(since, -300) });
      const records = pages.flatMap((page) => page.data);
      const expected = source.dataset[endpoint].filter((record) => comparedAt(record) >= since);
      expect(new Set(records.map((record) => record.id))).toEqual(new Set(expected.map((record) => record.id)));
      expect(records).toHaveLength(expected.length);
      for (let i = 1; i < records.length; i += 1) {
        const [before, after] = [records[i - 1] as SourceRecord, records[i] as SourceRecord];
        const step = comparedAt(after) - comparedAt(before);
        expect(step > 0 || (step === 0 && before.id < after.id), `${before.id} then ${after.id}`).toBe(true);
      }
    },
  );

  test("updated_since is inclusive: the record stamped exactly at it comes first, whatever offset either is written in", async () => {
    const lead = source.dataset.leads[17] as SourceRecord & { updated_at: string };
    const instant = Date.parse(lead.updated_at);
    for (const offset of [0, 120, -300]) {
      const { body } = await get("/leads", { limit: "100", updated_since: formatTimestamp(instant, offset) });
      const records = (body as Envelope).data;
      expect(records.map((record) => record.id)).toContain(lead.id);
      expect(records.every((record) => comparedAt(record) >= instant)).toBe(true);
      expect(comparedAt(records[0] as SourceRecord)).toBe(instant);
    }
    // One second later, it is gone.
    const { body } = await get("/leads", { limit: "100", updated_since: formatTimestamp(instant + 1000, 0) });
    expect((body as Envelope).data.map((record) => record.id)).not.toContain(lead.id);
  });

  test("events: updated_at is compared when sent, else created_at", async () => {
    const edited = source.dataset.events.find((event) => event.updated_at !== undefined);
    expect(edited).toBeDefined();
    const updated = Date.parse(edited?.updated_at as string);
    expect(updated).toBeGreaterThan(Date.parse(edited?.created_at as string));
    // updated_since = its updated_at, which is after its created_at: it is in, so updated_at is what counts.
    const pages = await readAll("/events", { limit: "100", updated_since: formatTimestamp(updated, 0) });
    expect(pages.flatMap((page) => page.data).map((event) => event.id)).toContain(edited?.id);
    // Without updated_at, created_at decides: one second after it, the event is out.
    const plain = source.dataset.events.find((event) => event.updated_at === undefined);
    const created = Date.parse(plain?.created_at as string);
    const after = await readAll("/events", { limit: "100", updated_since: formatTimestamp(created + 1000, 0) });
    expect(after.flatMap((page) => page.data).map((event) => event.id)).not.toContain(plain?.id);
  });

  test.each(["pipelines", "users"])("/%s ignores updated_since, even a malformed one: the full list every time", async (endpoint) => {
    const all = await get(`/${endpoint}`, {});
    for (const since of ["2099-01-01T00:00:00+00:00", "yesterday"]) {
      const { status, body } = await get(`/${endpoint}`, { updated_since: since });
      expect(status).toBe(200);
      expect(body).toEqual(all.body);
    }
    expect((all.body as Envelope).data).toHaveLength(source.dataset[endpoint as "users"].length);
  });

  test.each([
    ["no offset", "2026-03-01T00:00:00"],
    ["a bare date", "2026-03-01"],
    ["an impossible date", "2026-02-30T00:00:00Z"],
    ["an unencoded + (arrives as a space)", "2026-03-01T00:00:00 02:00"],
    ["not a timestamp", "last week"],
  ])("a malformed updated_since (%s) is a 400 with an error string", async (_name, since) => {
    const { status, body } = await get("/contacts", { updated_since: since });
    expect(status).toBe(400);
    expect(body).toEqual({ error: expect.stringContaining("updated_since must be an ISO-8601 date-time with an offset") });
  });

  test("updated_since after every record: 200, empty data, has_more false", async () => {
    const { status, body } = await get("/leads", { updated_since: "2099-01-01T00:00:00+00:00" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ data: [], has_more: false });
  });
});
