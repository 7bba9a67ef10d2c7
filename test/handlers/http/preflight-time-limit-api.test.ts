import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PREFLIGHT_ABANDONED_AFTER_MS, PREFLIGHT_INTERNAL_ERROR, PREFLIGHT_TIME_LIMIT_MS } from "../../../lambdas/domain/preflight/preflight-failure";
import { startedPreflightRun, type PreflightRun } from "../../../lambdas/domain/preflight/preflight-run";
import { preflightTimeLimit } from "../../../lambdas/domain/source-contract/rules/preflight-rules";
import { createApiHarness, CONNECTIONS_PATH, type ApiHarness } from "../../support/api-harness";
import { ManualClock } from "../../support/manual-clock";
import { PREFLIGHT_TOKEN, startPreflightSource, type PreflightSource } from "../../support/preflight-source";

/**
 * A service check never stays "running": it ends failed by its time limit (preflight.time-limit, with its sentence)
 * when the source is too slow for it, on an error of ours when its worker fails (the local launcher's equivalent of
 * Lambda's on-failure destination), and by the time limit when read long after a worker that was lost. Time is a
 * ManualClock each source request moves on: no test waits on the wall clock.
 */
const START = Date.parse("2026-11-21T09:00:00.000Z");
const clock = new ManualClock(START);
let api: ApiHarness;
let owner: string;
const sources: PreflightSource[] = [];

beforeAll(async () => {
  api = await createApiHarness({ clock });
  owner = await api.token("acct-preflight-limit");
});
afterAll(async () => {
  await Promise.all(sources.map((source) => source.close()));
  await api.close();
});

async function connection(knobs: Parameters<typeof startPreflightSource>[0] = {}): Promise<string> {
  const source = await startPreflightSource(knobs);
  sources.push(source);
  const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: PREFLIGHT_TOKEN, rate_limit: 1000 } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const startCheck = async (id: string): Promise<PreflightRun> => {
  const started = await api.request("POST", `${CONNECTIONS_PATH}/${id}/preflight`, { token: owner });
  expect(started.status).toBe(202);
  return started.body as PreflightRun;
};
const readCheck = async (id: string, preflightId: string) => (await api.request("GET", `${CONNECTIONS_PATH}/${id}/preflight/${preflightId}`, { token: owner })).body as PreflightRun;

describe("a service check that does not finish ends failed, never running", () => {
  test("a source too slow for the check: it stops at its time limit, failed by preflight.time-limit with its sentence, keeping what it found so far", async () => {
    // It also serves a request without a token: a finding of the check's first requests, which the failed run keeps.
    const id = await connection({ acceptMissingToken: true });
    const real = api.sync.limiter.acquire.bind(api.sync.limiter);
    let requests = 0;
    // Each request the check makes costs a minute of the clock: the limit falls inside the first endpoints.
    api.sync.limiter.acquire = async (connectionId, rate) => {
      requests += 1;
      await clock.sleep(60_000);
      return real(connectionId, rate);
    };
    try {
      const started = await startCheck(id);
      await api.preflightLauncher.idle();
      const run = await readCheck(id, started.id);
      expect(run.status).toBe("failed");
      expect(run.conforms).toBe(false);
      const limit = run.findings.filter((finding) => finding.rule === preflightTimeLimit.id);
      expect(limit).toEqual([
        { rule: "preflight.time-limit", severity: "error", endpoint: expect.stringMatching(/^\//), detail: run.error, spec: preflightTimeLimit.spec, request: "" },
      ]);
      expect(run.error).toMatch(/^the check did not finish within its 14 minutes and stopped (at \/\w+, page \d+|before it could read a first page): /);
      expect(run.findings.map((finding) => finding.rule)).toContain("auth.missing-token-401");
      expect(run.progress).toBeNull();
      expect(Date.parse(run.finished_at!) - Date.parse(run.started_at)).toBeGreaterThanOrEqual(PREFLIGHT_TIME_LIMIT_MS);
      // It stopped before its next request once the limit was reached: one request per minute, 14 minutes.
      expect(requests).toBe(PREFLIGHT_TIME_LIMIT_MS / 60_000);
    } finally {
      api.sync.limiter.acquire = real;
    }
  });

  test("a worker that throws: the launcher hands its job on, as Lambda does to the on-failure destination, and the run ends failed on an error of ours", async () => {
    const id = await connection();
    const store = api.onboarding.preflights;
    const put = store.put.bind(store);
    let failed = false;
    // The finishing write fails once: the job rejects with the run still "running" in the store.
    store.put = async (run) => {
      if (run.status !== "running" && !failed) {
        failed = true;
        throw new Error("the store refused the write");
      }
      return put(run);
    };
    try {
      const started = await startCheck(id);
      await api.preflightLauncher.idle();
      expect(failed).toBe(true);
      const run = await readCheck(id, started.id);
      expect(run).toMatchObject({ status: "failed", error: PREFLIGHT_INTERNAL_ERROR, progress: null });
      expect(run.finished_at).toEqual(expect.any(String));
    } finally {
      store.put = put;
    }
  });

  test("a run its worker left running (a process stopped mid-check): still running before the worker could have ended, failed by the time limit once read after it", async () => {
    const id = await connection();
    const now = clock.now();
    const left: PreflightRun = { ...startedPreflightRun("20261121T090000000Z-lost01", { id, base_url: "http://127.0.0.1:9" }, now), progress: { endpoint: "/leads", page: 3 } };
    await api.onboarding.preflights.put(left);

    await clock.sleep(PREFLIGHT_ABANDONED_AFTER_MS - 1);
    expect((await readCheck(id, left.id)).status).toBe("running");

    await clock.sleep(1);
    const run = await readCheck(id, left.id);
    expect(run).toMatchObject({ status: "failed", conforms: false, progress: null });
    expect(run.error).toMatch(/^the check did not finish within its 14 minutes and stopped at \/leads, page 3: /);
    expect(run.findings).toEqual([expect.objectContaining({ rule: "preflight.time-limit", endpoint: "/leads" })]);
    // Stored so: the next read answers the same.
    expect(await readCheck(id, left.id)).toEqual(run);
  });
});
