import type * as v from "valibot";
import { afterEach, describe, expect, test } from "vitest";
import { generateDataset } from "../../../bin/reference-source/dataset";
import { comparedAt } from "../../../bin/reference-source/endpoints";
import { mutate } from "../../../bin/reference-source/mutations";
import { seededRandom } from "../../../bin/reference-source/prng";
import type { Dataset, SourceLead, SourceRecord } from "../../../bin/reference-source/records";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import { formatTimestamp } from "../../../bin/reference-source/timestamps";
import { ContactSchema } from "../../../lambdas/domain/records/contact";
import { EventSchema } from "../../../lambdas/domain/records/event";
import { LeadSchema } from "../../../lambdas/domain/records/lead";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { TaskSchema } from "../../../lambdas/domain/records/task";

const NOW = new Date("2026-06-01T12:00:00Z");
const SIZES = { contacts: 400, leads: 450, tasks: 200, calls: 100, events: 300 };
const CHANGING = ["contacts", "leads", "tasks", "events"] as const;
const SCHEMAS: Readonly<Record<(typeof CHANGING)[number], v.GenericSchema>> = {
  contacts: ContactSchema,
  leads: LeadSchema,
  tasks: TaskSchema,
  events: EventSchema,
};

const sources: ReferenceSource[] = [];
afterEach(async () => {
  await Promise.all(sources.splice(0).map((source) => source.close()));
});

async function start(options: { mutateEverySeconds?: number } = {}): Promise<ReferenceSource> {
  const source = await startReferenceSource({ seed: 9, now: NOW, sizes: SIZES, ...options });
  sources.push(source);
  return source;
}

async function readAll(source: ReferenceSource, path: string, since?: number): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for (let page = 1; ; page += 1) {
    const url = new URL(`${source.url}${path}`);
    url.searchParams.set("page", String(page));
    if (since !== undefined) url.searchParams.set("updated_since", formatTimestamp(since, 120));
    const response = await fetch(url, { headers: { authorization: `Bearer ${source.token}` } });
    const body = (await response.json()) as { data: SourceRecord[]; has_more: boolean };
    records.push(...body.data);
    if (!body.has_more) return records;
  }
}

const maxCompared = (records: readonly SourceRecord[]): number => Math.max(...records.map(comparedAt));

function stageKind(dataset: Dataset, lead: SourceLead): string | undefined {
  return dataset.pipelines.find((p) => p.id === lead.pipeline_id)?.stages.find((s) => s.id === lead.stage_id)?.kind;
}

describe("changing over time", () => {
  test("updated_at advances on every modification: to now, past its previous value", () => {
    const dataset = generateDataset({ seed: 9, now: NOW, ...SIZES });
    const before = new Map(dataset.leads.map((lead) => [lead.id, lead.updated_at]));
    const at = new Date(NOW.getTime() + 5_000);
    const summary = mutate(dataset, at, seededRandom(1));
    expect(summary.leads.length).toBeGreaterThanOrEqual(4); // stage moves, a new lead, a soft-delete
    expect(summary.contacts.length).toBeGreaterThan(0);
    expect(summary.tasks.length).toBeGreaterThan(0);
    expect(summary.events.length).toBeGreaterThan(0);
    for (const id of summary.leads) {
      const lead = dataset.leads.find((candidate) => candidate.id === id) as SourceLead;
      expect(Date.parse(lead.updated_at)).toBeGreaterThanOrEqual(Math.floor(at.getTime() / 1000) * 1000);
      const previous = before.get(id);
      if (previous !== undefined) expect(Date.parse(lead.updated_at)).toBeGreaterThan(Date.parse(previous));
    }
    // Untouched records keep their timestamp.
    const untouched = dataset.leads.filter((lead) => !summary.leads.includes(lead.id));
    expect(untouched.every((lead) => lead.updated_at === before.get(lead.id))).toBe(true);
  });

  test("two changes to one record within the same second still advance its updated_at", () => {
    const dataset = generateDataset({ seed: 9, now: NOW, ...SIZES, contacts: 2 });
    const stamps = (): number[] => dataset.contacts.map((contact) => Date.parse(contact.updated_at));
    mutate(dataset, NOW, seededRandom(1)); // edits both contacts
    const first = stamps();
    mutate(dataset, NOW, seededRandom(2));
    stamps().forEach((stamp, i) => expect(stamp).toBeGreaterThan(first[i] as number));
  });

  test("changed and new records still obey the spec: valid, loss_reason only when lost, closed_at when closed, a tombstone", () => {
    const dataset = generateDataset({ seed: 9, now: NOW, ...SIZES });
    const rng = seededRandom(3);
    const changed = { contacts: new Set<string>(), leads: new Set<string>(), tasks: new Set<string>(), events: new Set<string>() };
    for (let round = 0; round < 20; round += 1) {
      const summary = mutate(dataset, new Date(NOW.getTime() + round * 30_000), rng);
      for (const entity of CHANGING) for (const id of summary[entity]) changed[entity].add(id);
    }
    for (const entity of CHANGING) {
      dataset[entity].forEach((record, index) => {
        if (changed[entity].has(record.id)) expect(() => parseRecord(SCHEMAS[entity], record, index)).not.toThrow();
      });
    }
    const leads = dataset.leads.filter((lead) => changed.leads.has(lead.id));
    for (const lead of leads) {
      const kind = stageKind(dataset, lead);
      expect(kind).toBeDefined();
      if (lead.loss_reason !== null) expect(kind).toBe("lost");
      if (!lead.is_deleted) expect(lead.closed_at === null, lead.id).toBe(kind === "open");
    }
    expect(leads.filter((lead) => lead.is_deleted).length).toBeGreaterThanOrEqual(20);
    expect(dataset.leads).toHaveLength(SIZES.leads + 20);
    expect(new Set(dataset.leads.map((lead) => lead.id)).size).toBe(dataset.leads.length);
    expect(new Set(dataset.events.map((event) => event.id)).size).toBe(dataset.events.length);
  });

  test.each(CHANGING)(
    "/%s: an incremental read from the previous max sees exactly the changed records (plus those stamped at that max: inclusive)",
    async (endpoint) => {
      const source = await start();
      const first = await readAll(source, `/${endpoint}`);
      const previousMax = maxCompared(first);
      const boundary = first.filter((record) => comparedAt(record) === previousMax).map((record) => record.id);
      const summary = source.mutate(new Date(NOW.getTime() + 60_000));
      const next = await readAll(source, `/${endpoint}`, previousMax);
      expect(new Set(next.map((record) => record.id))).toEqual(new Set([...summary[endpoint], ...boundary]));
      expect(next).toHaveLength(new Set([...summary[endpoint], ...boundary]).size);
      // And the changed versions are what is served.
      for (const record of next.filter((r) => summary[endpoint].includes(r.id))) {
        expect(comparedAt(record)).toBeGreaterThan(previousMax);
      }
    },
  );

  test("a read in progress is not disturbed by a change: no record skipped or repeated; the next read sees the change", async () => {
    const source = await start();
    const url = (page: number): string => `${source.url}/leads?limit=50&page=${page}&updated_since=2025-01-01T00:00:00%2B00:00`;
    const read = async (page: number) =>
      (await (await fetch(url(page), { headers: { authorization: `Bearer ${source.token}` } })).json()) as {
        data: SourceLead[];
        has_more: boolean;
      };
    const expectedIds = source.dataset.leads.map((lead) => lead.id);
    const seen: SourceLead[] = [];
    let page = 1;
    let body = await read(page);
    seen.push(...body.data);
    // Change records while the read is under way: changed leads from early pages move to the end of the order.
    for (let round = 0; round < 5; round += 1) source.mutate(new Date(NOW.getTime() + (round + 1) * 1000));
    while (body.has_more) {
      page += 1;
      body = await read(page);
      seen.push(...body.data);
    }
    expect(seen.map((lead) => lead.id).sort()).toEqual([...expectedIds].sort());
    for (let i = 1; i < seen.length; i += 1) expect(comparedAt(seen[i] as SourceLead)).toBeGreaterThanOrEqual(comparedAt(seen[i - 1] as SourceLead));
    // A new read (page 1 again) serves the changed versions.
    const fresh: SourceLead[] = [];
    for (page = 1, body = { data: [], has_more: true }; body.has_more; page += 1) {
      body = await read(page);
      fresh.push(...body.data);
    }
    expect(fresh).toHaveLength(source.dataset.leads.length);
    expect(fresh.filter((lead) => lead.is_deleted).length).toBeGreaterThan(seen.filter((lead) => lead.is_deleted).length);
  });

  test("--mutate-every: the server applies a round of changes on a timer", async () => {
    const source = await start({ mutateEverySeconds: 0.1 });
    const before = source.dataset.leads.length;
    await expect.poll(() => source.dataset.revision, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    expect(source.dataset.leads.length).toBeGreaterThan(before);
  });

  test("determinism: the same seed replays the same changes", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    for (let round = 0; round < 3; round += 1) {
      const at = new Date(NOW.getTime() + round * 30_000);
      expect(a.mutate(at)).toEqual(b.mutate(at));
    }
    expect(JSON.stringify(a.dataset)).toBe(JSON.stringify(b.dataset));
  });
});
