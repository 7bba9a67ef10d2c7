import { afterEach, describe, expect, test } from "vitest";
import { BAD_PRICE, type FaultOptions } from "../../../bin/reference-source/faults";
import { startReferenceSource, type ReferenceSource } from "../../../bin/reference-source/start-reference-source";
import { PageValidationError, SourceNotImplementedError, SourceThrottledError, SourceTransientError } from "../../../lambdas/domain/core/errors";
import { preparePage } from "../../../lambdas/domain/ingestion/prepare-page";
import { LeadSchema } from "../../../lambdas/domain/records/lead";
import { parseRecord } from "../../../lambdas/domain/records/parse-record";
import { createHttpSourceClient } from "../../../lambdas/adapters/source-http/http-source-client";

const SIZES = { contacts: 300, leads: 350, tasks: 50, calls: 50, events: 80 };
const sources: ReferenceSource[] = [];
afterEach(async () => {
  await Promise.all(sources.splice(0).map((source) => source.close()));
});

async function start(faults: Partial<FaultOptions>): Promise<ReferenceSource> {
  const source = await startReferenceSource({ seed: 5, now: new Date("2026-06-01T12:00:00Z"), sizes: SIZES, faults });
  sources.push(source);
  return source;
}

async function get(source: ReferenceSource, path: string, token = source.token) {
  const response = await fetch(`${source.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const statuses = async (source: ReferenceSource, count: number): Promise<number[]> => {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1) seen.push((await get(source, "/leads")).status);
  return seen;
};

describe("fault knobs", () => {
  test("--throttle-every 3: every 3rd request answers 429 with Retry-After (default 2 s) and an error string", async () => {
    const source = await start({ throttleEvery: 3 });
    expect(await statuses(source, 7)).toEqual([200, 200, 429, 200, 200, 429, 200]);
    const throttled = await start({ throttleEvery: 1 });
    const { status, headers, body } = await get(throttled, "/pipelines");
    expect(status).toBe(429);
    expect(headers.get("retry-after")).toBe("2");
    expect(body).toEqual({ error: expect.any(String) });
  });

  test("--retry-after 5: the service's client reads it as SourceThrottledError with retryAfterSeconds 5", async () => {
    const source = await start({ throttleEvery: 1, retryAfterSeconds: 5 });
    const failure = await createHttpSourceClient()
      .fetchPage({ baseUrl: source.url, token: source.token }, { path: "/leads", page: 1 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceThrottledError);
    expect((failure as SourceThrottledError).retryAfterSeconds).toBe(5);
  });

  test("--burst-503 2 --burst-every 3: after every 3 requests the next 2 answer 503 { error: 'temporarily unavailable' }", async () => {
    const source = await start({ burst503: 2, burstEvery: 3 });
    expect(await statuses(source, 11)).toEqual([200, 200, 200, 503, 503, 200, 200, 200, 503, 503, 200]);
    const burst = await start({ burst503: 1, burstEvery: 0 });
    expect(await get(burst, "/users")).toMatchObject({ status: 503, body: { error: "temporarily unavailable" } });
    await expect(
      createHttpSourceClient().fetchPage({ baseUrl: burst.url, token: burst.token }, { path: "/users", page: 1 }),
    ).rejects.toBeInstanceOf(SourceTransientError);
  });

  test("a wrong token is a 401 before any fault and does not count towards them", async () => {
    const source = await start({ throttleEvery: 2 });
    expect((await get(source, "/leads", "wrong")).status).toBe(401);
    expect((await get(source, "/leads", "wrong")).status).toBe(401);
    expect(await statuses(source, 2)).toEqual([200, 429]);
  });

  test("--slow-ms 300: every response, errors included, is held back 300 ms before it is sent", async () => {
    // The delay is driven by the test: each held answer is released by hand, so nothing waits on the clock.
    const held: { ms: number; send: () => void }[] = [];
    let arrived!: () => void;
    const source = await startReferenceSource({
      seed: 5,
      now: new Date("2026-06-01T12:00:00Z"),
      sizes: SIZES,
      faults: { slowMs: 300 },
      delay: (send, ms) => {
        held.push({ ms, send });
        arrived();
      },
    });
    sources.push(source);
    for (const token of [source.token, "wrong"]) {
      const heldNow = new Promise<void>((resolve) => (arrived = resolve));
      let answered = false;
      const response = get(source, "/pipelines", token).then((answer) => ((answered = true), answer));
      await heldNow;
      expect(answered).toBe(false);
      expect(held.at(-1)!.ms).toBe(300);
      held.at(-1)!.send();
      expect((await response).status).toBe(token === source.token ? 200 : 401);
    }
    expect(held).toHaveLength(2);
  });

  test("--bad-record: one lead on page 2 of /leads has a non-numeric price; that page fails validation with PageValidationError naming price", async () => {
    const source = await start({ badRecord: true });
    const client = createHttpSourceClient();
    const connection = { baseUrl: source.url, token: source.token };
    const since = "2025-01-01T00:00:00+00:00";
    const prepare = async (page: number) => {
      const fetched = await client.fetchPage(connection, { path: "/leads", page, updatedSince: since });
      return { fetched, prepare: () => preparePage({ entity: "leads", page, data: fetched.data, previous: null, stageKinds: new Map() }) };
    };
    const one = await prepare(1);
    expect(one.prepare).not.toThrow();
    const two = await prepare(2);
    const bad = two.fetched.data.filter((lead) => (lead as { price: unknown }).price === BAD_PRICE);
    expect(bad).toHaveLength(1);
    let failure: unknown;
    try {
      two.prepare();
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(PageValidationError);
    expect(failure).toMatchObject({ field: "price", recordId: (bad[0] as { id: string }).id });
    expect((await prepare(3)).prepare).not.toThrow();
    // The data itself is untouched: the fault is in what page 2 serves.
    for (const [index, lead] of source.dataset.leads.entries()) expect(() => parseRecord(LeadSchema, lead, index)).not.toThrow();
  });

  test("--missing tasks,calls,events: those answer 404 (SourceNotImplementedError in the service); the required endpoints still 200", async () => {
    const source = await start({ missing: ["tasks", "calls", "events"] });
    const client = createHttpSourceClient();
    for (const endpoint of ["tasks", "calls", "events"]) {
      expect(await get(source, `/${endpoint}`), endpoint).toMatchObject({ status: 404, body: { error: "not implemented" } });
      await expect(
        client.fetchPage({ baseUrl: source.url, token: source.token }, { path: `/${endpoint}`, page: 1 }),
      ).rejects.toBeInstanceOf(SourceNotImplementedError);
    }
    for (const endpoint of ["pipelines", "users", "contacts", "leads"]) {
      expect((await get(source, `/${endpoint}`)).status, endpoint).toBe(200);
    }
  });

  test("no knobs: nothing but 200s", async () => {
    const source = await start({});
    expect(new Set(await statuses(source, 30))).toEqual(new Set([200]));
    expect(source.faults.describe()).toBe("none");
  });
});
