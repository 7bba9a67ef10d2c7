import { describe, expect, test } from "vitest";
import { MAX_RETRIES, RETRY_BACKOFF_SECONDS } from "../../../lambdas/domain/core/limits";
import { RequestWindow } from "../../../lambdas/domain/preflight/request-window";
import { SourceTransport, type PreflightFetch } from "../../../lambdas/domain/preflight/source-transport";
import { ManualClock, manualTime } from "../../support/manual-clock";
import { startSourceServer } from "../../support/source-server";
import { runKitAgainst } from "./preflight-harness";

/** The largest number of starts in any window [start, start + 1000 ms). */
function busiestSecond(starts: readonly number[]): number {
  return Math.max(...starts.map((from) => starts.filter((at) => at >= from && at < from + 1000).length));
}

describe("never more than --rate request starts in any one-second window (injected clock)", () => {
  test("RequestWindow at rate 3: starts at t, t, t, then t+1000 x3, t+2000 x3", async () => {
    const clock = new ManualClock(0);
    const window = new RequestWindow(3, clock, clock.sleep);
    const starts: number[] = [];
    for (let i = 0; i < 9; i++) {
      await window.acquire();
      starts.push(clock.now().getTime());
    }
    expect(starts).toEqual([0, 0, 0, 1000, 1000, 1000, 2000, 2000, 2000]);
  });

  test.each([1, 5, 10])("a whole run at --rate %i: the busiest second holds exactly that many starts", async (rate) => {
    const run = await runKitAgainst({}, { rate });
    expect(run.starts.length).toBeGreaterThan(rate * 3);
    expect(busiestSecond(run.starts)).toBe(rate);
  });
});

describe("429 and Retry-After", () => {
  test("the request after a 429 with Retry-After: 3 starts 3 s (clock) later, and the run finishes", async () => {
    const run = await runKitAgainst({ throttleEvery: 7, retryAfter: "3" });
    const throttled = run.exchanges.findIndex((e) => e.status === 429);
    expect(throttled).toBeGreaterThan(0);
    expect(run.exchanges[throttled + 1]!.at - run.exchanges[throttled]!.at).toBeGreaterThanOrEqual(3000);
    expect(run.report.findings.map((f) => f.rule)).toContain("rate.declared");
    expect(run.exitCode).toBe(0);
  });

  test("Retry-After shorter than the backoff: the service's backoff (1, 2, 4, 8, 16 s) is waited instead; given up after 5 retries", async () => {
    const server = await startSourceServer(() => ({ status: 429, headers: { "retry-after": "1" }, json: { error: "slow down" } }));
    const clock = new ManualClock(0);
    const fetcher: PreflightFetch = (url, init) => fetch(url, init);
    try {
      const transport = new SourceTransport({ fetch: fetcher, clock, sleep: clock.sleep, rate: 100 });
      const response = await transport.get(new URL(`${server.baseUrl}/leads`), "Bearer t");
      expect(response.status).toBe(429);
      expect(server.requests).toHaveLength(1 + MAX_RETRIES);
      expect(clock.sleeps).toEqual(RETRY_BACKOFF_SECONDS.map((s) => s * 1000));
    } finally {
      await server.close();
    }
  });

  test("502, 503 and 504 are retried; a 500 is not (the service fails it on the first answer)", async () => {
    const statuses = [503, 502, 504, 200];
    const server = await startSourceServer((request) => ({ status: request.path === "/five-hundred" ? 500 : statuses.shift()!, json: { error: "x" } }));
    const clock = new ManualClock(0);
    try {
      const transport = new SourceTransport({ fetch: (url, init) => fetch(url, init), clock, sleep: clock.sleep, rate: 100 });
      expect((await transport.get(new URL(`${server.baseUrl}/leads`), null)).status).toBe(200);
      expect((await transport.get(new URL(`${server.baseUrl}/five-hundred`), null)).status).toBe(500);
      expect(server.requests.map((r) => r.path)).toEqual(["/leads", "/leads", "/leads", "/leads", "/five-hundred"]);
    } finally {
      await server.close();
    }
  });

  test("GET only, with Accept: application/json and the Bearer token in the header, never in the URL", async () => {
    const run = await runKitAgainst({ sizes: { contacts: 2, leads: 2 } });
    expect(new Set(run.source.requests.map((r) => r.method))).toEqual(new Set(["GET"]));
    expect(run.source.requests.every((r) => r.headers.accept === "application/json")).toBe(true);
    expect(run.source.requests.some((r) => r.url.includes(run.source.token))).toBe(false);
  });
});

describe("a source that cannot be reached: a PreflightCannotRunError with one line saying what to do", () => {
  test("connection refused", async () => {
    const server = await startSourceServer(() => ({ json: {} }));
    const url = server.baseUrl;
    await server.close();
    const transport = new SourceTransport({ fetch: (u, init) => fetch(u, init), ...manualTime(0), rate: 5 });
    await expect(transport.get(new URL(`${url}/pipelines`), "Bearer secret-token")).rejects.toMatchObject({
      name: "PreflightCannotRunError",
      message: expect.stringMatching(/^connection refused by http:\/\/127\.0\.0\.1:\d+: start the source or fix the base URL$/),
    });
  });
});
