import { afterAll, describe, expect, test } from "vitest";
import { PREFLIGHT_SERVICE_MAX_PAGES } from "../../../lambdas/domain/preflight/preflight-job";
import { CONNECTIONS_PATH, useOwnerApi } from "../../support/api-harness";
import { PREFLIGHT_TOKEN, startPreflightSource, type PreflightSource } from "../../support/preflight-source";

/**
 * The conformance kit from the service (issue "Conformance kit", section 4):
 * POST .../preflight answers 202 at once; the check runs with the stored token,
 * through the service's SSRF-guarded fetch, under the connection's limiter;
 * GET .../preflight/{id} gives the report in the kit's JSON shape. Each test
 * waits on the launcher's gate (idle()), never on the clock.
 */

const env = useOwnerApi("acct-preflight");
const sources: PreflightSource[] = [];
afterAll(async () => {
  await Promise.all(sources.map((source) => source.close()));
});

async function connectionTo(source: PreflightSource, account = env.owner): Promise<string> {
  const created = await env.api.request("POST", CONNECTIONS_PATH, { token: account, body: { base_url: source.baseUrl, token: PREFLIGHT_TOKEN, rate_limit: 1000 } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

async function source(knobs: Parameters<typeof startPreflightSource>[0] = {}): Promise<PreflightSource> {
  const started = await startPreflightSource(knobs);
  sources.push(started);
  return started;
}

/** Starts a check and returns its finished report. */
async function preflight(id: string) {
  const started = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/preflight`, { token: env.owner });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ status: "running", connection_id: id, findings: [], finished_at: null });
  await env.api.preflightLauncher.idle();
  const report = await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/preflight/${started.body.id}`, { token: env.owner });
  expect(report.status).toBe(200);
  return report.body;
}

describe("POST and GET /connections/{id}/preflight", () => {
  test("a conforming source: 202 with a running report, then the kit's report: conforms, no finding, every rule checked", async () => {
    const id = await connectionTo(await source());
    const report = await preflight(id);
    expect(report).toMatchObject({ status: "succeeded", conforms: true, findings: [], error: null, progress: null });
    expect(report.finished_at).toEqual(expect.any(String));
    expect(report.checked).toEqual(expect.arrayContaining(["auth.wrong-token-401", "paging.no-repeat-page", "incremental.inclusive", "record.id"]));
  });

  test("a source that breaks a rule: the report names the rule, its severity, the endpoint and the fix", async () => {
    const id = await connectionTo(await source({ sinceExclusive: true }));
    const report = await preflight(id);
    expect(report.status).toBe("succeeded");
    expect(report.conforms).toBe(false);
    expect(report.findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ rule: "incremental.inclusive", severity: "error", endpoint: expect.stringMatching(/^\//) })]),
    );
  });

  test("the check runs with the stored token under the connection's shared limiter: one slot per request the source saw", async () => {
    const checked = await source();
    const id = await connectionTo(checked);
    const real = env.api.sync.limiter.acquire.bind(env.api.sync.limiter);
    const slots: string[] = [];
    env.api.sync.limiter.acquire = async (connectionId, rate) => {
      slots.push(`${connectionId}@${rate}`);
      return real(connectionId, rate);
    };
    try {
      const before = checked.requests.length;
      await preflight(id);
      const seen = checked.requests.slice(before);
      expect(seen.some((request) => request.headers.authorization === `Bearer ${PREFLIGHT_TOKEN}`)).toBe(true);
      expect(slots).toHaveLength(seen.length);
      expect(new Set(slots)).toEqual(new Set([`${id}@1000`]));
    } finally {
      env.api.sync.limiter.acquire = real;
    }
  });

  test(`the service's check reads at most ${PREFLIGHT_SERVICE_MAX_PAGES} pages per endpoint (a Lambda must finish it)`, async () => {
    const big = await source({ sizes: { contacts: (PREFLIGHT_SERVICE_MAX_PAGES + 5) * 100 } });
    const id = await connectionTo(big);
    const before = big.requests.length;
    await preflight(id);
    const pages = big.requests.slice(before).filter((request) => request.path === "/contacts").map((request) => Number(request.query["page"]));
    const highest = Math.max(...pages);
    expect(highest).toBe(PREFLIGHT_SERVICE_MAX_PAGES);
  });

  test("the token never appears in a report or a response, even when the source echoes it in its errors", async () => {
    const id = await connectionTo(await source({ status: { tasks: 400 }, errorBodyText: true }));
    const report = await preflight(id);
    expect(report.status).toBe("succeeded");
    for (const text of env.api.responses) expect(text).not.toContain(PREFLIGHT_TOKEN.slice(0, 12));
  });

  test("an unknown report id, an over-long one, and another workspace's connection all answer 404", async () => {
    const id = await connectionTo(await source());
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/preflight/20260101T000000000Z-000000`, { token: env.owner })).status).toBe(404);
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/preflight/${"x".repeat(1100)}`, { token: env.owner })).status).toBe(404);
    const started = await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/preflight`, { token: env.owner });
    await env.api.preflightLauncher.idle();
    const stranger = await env.api.token("acct-preflight-other");
    expect((await env.api.request("GET", `${CONNECTIONS_PATH}/${id}/preflight/${started.body.id}`, { token: stranger })).status).toBe(404);
    expect((await env.api.request("POST", `${CONNECTIONS_PATH}/${id}/preflight`, { token: stranger })).status).toBe(404);
  });
});
