import { ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { COLLECTIONS, SUMMARY_ENTITIES } from "../../../lambdas/domain/core/entities";
import type { RunSummary } from "../../../lambdas/domain/core/run-summary";
import {
  callRecord,
  contactRecord,
  eventRecord,
  leadRecord,
  pipelineRecord,
  taskRecord,
  userRecord,
} from "../../builders/source-records";
import { crmSource } from "../../support/crm-source";
import { createApiHarness, CONNECTIONS_PATH, type ApiHarness } from "../../support/api-harness";
import { startSourceServer, type SourceServer } from "../../support/source-server";

/**
 * The source token never appears in a response, a log line, a run summary, an
 * error detail or anything stored in plain text, even when the source echoes
 * the Authorization header back in its error body.
 */

const SOURCE_TOKEN = "SECRET-src-token-d41d8cd98f00b204";
const WRONG_TOKEN = "SECRET-wrong-token-e9800998ecf8427e";
const ROTATED_TOKEN = "SECRET-rotated-token-7215ee9c7d9dc229";
const SECRETS = [SOURCE_TOKEN, WRONG_TOKEN, ROTATED_TOKEN];

const DATA = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: [contactRecord()],
  leads: [leadRecord(), leadRecord({ id: "lead-2", stage_id: "stage-lost", loss_reason: "too expensive", updated_at: "2026-02-03T09:00:00Z" })],
  tasks: [taskRecord()],
  calls: [callRecord()],
  events: [eventRecord()],
};

let api: ApiHarness;
let source: SourceServer;
let owner: string;
const ACCOUNT = "acct-secrets";
let accepted = SOURCE_TOKEN;
const good = crmSource(() => DATA, { token: SOURCE_TOKEN });
const rotated = crmSource(() => DATA, { token: ROTATED_TOKEN });

beforeAll(async () => {
  // Every item of the table is searched for the token: the figures and per-manager rows a run's end writes too.
  api = await createApiHarness({ runEndFigures: true });
  // A careless source: every rejection quotes the Authorization header it got.
  source = await startSourceServer((request) => {
    const authorization = String(request.headers.authorization ?? "");
    if (authorization !== `Bearer ${accepted}`) {
      return { status: 401, json: { error: `invalid credentials in Authorization header "${authorization}"` } };
    }
    return (accepted === SOURCE_TOKEN ? good : rotated)(request);
  });
  owner = await api.token(ACCOUNT);
});
afterAll(async () => {
  await source.close();
  await api.close();
});

/** Every text the service produced or keeps in plain sight. */
function expectNoSecretIn(what: string, text: string): void {
  for (const secret of SECRETS) expect(text.includes(secret), `${what} contains ${secret}`).toBe(false);
}

describe("the source token never appears in a response, a log line, a run summary or an error detail", () => {
  let goodId: string;
  let wrongId: string;
  const runs: Array<{ connectionId: string; runId: string }> = [];
  const conn = (id: string, rest = "") => `${CONNECTIONS_PATH}/${id}${rest}`;

  test("create, list, get, patch: no token in any answer", async () => {
    const created = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 100 } });
    expect(created.status).toBe(201);
    goodId = created.body.id;
    const wrong = await api.request("POST", CONNECTIONS_PATH, {
      token: owner,
      body: { base_url: source.baseUrl, token: WRONG_TOKEN, rate_limit: 100, trigger_sync: true },
    });
    expect(wrong.status).toBe(201);
    wrongId = wrong.body.id;
    const firstRun = { connectionId: wrongId, runId: (await api.sync.runs.list(wrongId))[0]!.id };
    runs.push(firstRun);
    // Its requests must not mix with the test calls' below.
    await api.waitForRun(firstRun.connectionId, firstRun.runId);

    expect((await api.request("GET", CONNECTIONS_PATH, { token: owner })).body.data).toHaveLength(2);
    expect((await api.request("GET", conn(goodId), { token: owner })).status).toBe(200);
    expect((await api.request("PATCH", conn(goodId), { token: owner, body: { rate_limit: 50 } })).status).toBe(200);
    // Re-set to the same token: a token PATCH answers with the Connection, never the token.
    expect((await api.request("PATCH", conn(goodId), { token: owner, body: { token: SOURCE_TOKEN } })).status).toBe(200);
  });

  test("the test call, success and 401 with the header echoed: the echo reaches the detail, the token does not", async () => {
    const ok = await api.request("POST", conn(goodId, "/test"), { token: owner });
    expect(ok.body).toMatchObject({ reachable: true, authenticated: true, pipelines_found: 1 });

    const requestsBefore = source.requests.length;
    const rejected = await api.request("POST", conn(wrongId, "/test"), { token: owner });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({ reachable: true, authenticated: false, detail: expect.stringContaining("invalid credentials in Authorization header") });
    // The source really did send the token back; the service cut it out.
    expect(source.requests.length).toBe(requestsBefore + 1);
    expect(source.requests.at(-1)?.headers.authorization).toBe(`Bearer ${WRONG_TOKEN}`);
    expect(rejected.body.detail).toMatch(/Authorization header "Bearer [^"]/);
  });

  test("syncs: started, listed and read while running and after", async () => {
    const started = await api.request("POST", conn(goodId, "/syncs"), { token: owner });
    expect(started.status).toBe(202);
    runs.push({ connectionId: goodId, runId: started.body.id });
    for (const { connectionId, runId } of runs) {
      await api.request("GET", conn(connectionId, "/syncs"), { token: owner });
      await api.request("GET", conn(connectionId, `/syncs/${runId}`), { token: owner });
    }
    const summaries: RunSummary[] = [];
    for (const { connectionId, runId } of runs) summaries.push(await api.waitForRun(connectionId, runId));
    const [wrongRun, goodRun] = summaries;
    expect(goodRun?.status).toBe("succeeded");
    expect(wrongRun?.status).toBe("failed");
    // The 401 with the echoed header became every entity's error detail: redacted there too.
    for (const row of wrongRun?.entities ?? []) expect(row.error).toMatch(/Authorization header "Bearer [^"]/);
    for (const { connectionId, runId } of runs) {
      expect((await api.request("GET", conn(connectionId, "/syncs"), { token: owner })).body.data.length).toBeGreaterThan(0);
      expect((await api.request("GET", conn(connectionId, `/syncs/${runId}`), { token: owner })).status).toBe(200);
    }
  });

  test("token rotation and a sync with the new token: still nowhere", async () => {
    accepted = ROTATED_TOKEN;
    try {
      expect((await api.request("PATCH", conn(goodId), { token: owner, body: { token: ROTATED_TOKEN } })).status).toBe(200);
      const tested = await api.request("POST", conn(goodId, "/test"), { token: owner });
      expect(tested.body).toMatchObject({ reachable: true, authenticated: true });
      const started = await api.request("POST", conn(goodId, "/syncs"), { token: owner });
      runs.push({ connectionId: goodId, runId: started.body.id });
      expect((await api.waitForRun(goodId, started.body.id)).status).toBe("succeeded");
    } finally {
      accepted = SOURCE_TOKEN;
    }
  });

  test("records of every collection are read back", async () => {
    for (const entity of COLLECTIONS) {
      const page = await api.request("GET", conn(goodId, `/records/${entity}`), { token: owner });
      expect(page.status).toBe(200);
      expect(page.body.data.length, entity).toBeGreaterThan(0);
      await api.request("GET", conn(wrongId, `/records/${entity}`), { token: owner });
    }
  });

  test("no response text contains a token", () => {
    expect(api.responses.length).toBeGreaterThan(20);
    for (const text of api.responses) expectNoSecretIn("a response", text);
  });

  test("no log line contains a token", () => {
    expect(api.logger.lines.length).toBeGreaterThan(0);
    for (const line of api.logger.lines) expectNoSecretIn("a log line", JSON.stringify(line));
  });

  test("no run summary contains a token", async () => {
    for (const id of [goodId, wrongId]) {
      const summaries = await api.sync.runs.list(id);
      expect(summaries.length).toBeGreaterThan(0);
      expect(summaries.every((summary) => summary.entities.length === SUMMARY_ENTITIES.length)).toBe(true);
      expectNoSecretIn("a run summary", JSON.stringify(summaries));
    }
  });

  test("no stored record contains a token, and no item of the table holds one in plain text", async () => {
    for (const id of [goodId, wrongId]) {
      for (const entity of COLLECTIONS) {
        const page = await api.sync.records.listRecords(id, entity, { limit: 1000 });
        expectNoSecretIn(`a stored ${entity} record`, JSON.stringify(page.records));
      }
    }
    // Everything in the table: connections, runs, records, watermarks, rate-limit items.
    let items = 0;
    let startKey: Record<string, any> | undefined;
    do {
      const out = await api.client.send(new ScanCommand({ TableName: api.tableName, ExclusiveStartKey: startKey }));
      for (const item of out.Items ?? []) {
        items += 1;
        expectNoSecretIn("a table item", JSON.stringify(item));
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined);
    expect(items).toBeGreaterThan(10);
  });
});

describe("encryption context: a ciphertext copied to another connection does not decrypt", () => {
  let aId: string;
  let bId: string;
  let bSource: SourceServer;

  beforeAll(async () => {
    // B's own source accepts A's token: had the copied ciphertext decrypted, B's requests would succeed.
    bSource = await startSourceServer(crmSource(() => DATA, { token: SOURCE_TOKEN }));
    aId = (await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN } })).body.id;
    bId = (
      await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: bSource.baseUrl, token: "b-own-token", rate_limit: 100 } })
    ).body.id;
    const a = await api.sync.connections.get(ACCOUNT, aId);
    const b = await api.sync.connections.get(ACCOUNT, bId);
    if (a === null || b === null) throw new Error("connections not stored");
    expect(a.token_ciphertext).not.toBe(b.token_ciphertext);
    await api.sync.connections.put({ ...b, token_ciphertext: a.token_ciphertext });
  });
  afterAll(async () => {
    await bSource.close();
  });

  test("A still decrypts under its own context", async () => {
    const a = await api.sync.connections.get(ACCOUNT, aId);
    await expect(api.cipher.decrypt(a!.token_ciphertext, { businessAccountId: ACCOUNT, connectionId: aId })).resolves.toBe(SOURCE_TOKEN);
  });

  test("POST B/test: 200, not reachable, a detail saying the token does not decrypt, and no request to the source", async () => {
    const tested = await api.request("POST", `${CONNECTIONS_PATH}/${bId}/test`, { token: owner });
    expect(tested.status).toBe(200);
    expect(tested.body).toEqual({ reachable: false, authenticated: false, detail: expect.stringMatching(/cannot be decrypted/) });
    expect(bSource.requests).toEqual([]);
  });

  test("a sync of B fails every entity on its unreadable token (connection.token-readable), and no request reaches the source", async () => {
    const started = await api.request("POST", `${CONNECTIONS_PATH}/${bId}/syncs`, { token: owner });
    expect(started.status).toBe(202);
    const summary = await api.waitForRun(bId, started.body.id);
    expect(summary.status).toBe("failed");
    expect(summary.entities.map((row) => row.entity)).toEqual([...SUMMARY_ENTITIES]);
    for (const row of summary.entities) {
      expect(row, row.entity).toMatchObject({
        status: "failed",
        pages: 0,
        records: 0,
        error: expect.stringMatching(/^the stored token can no longer be read/),
        failure: { rule: "connection.token-readable", fix: expect.stringContaining("token") },
      });
    }
    expect(bSource.requests).toEqual([]);
    // And the answer over HTTP says the same.
    const read = await api.request("GET", `${CONNECTIONS_PATH}/${bId}/syncs/${started.body.id}`, { token: owner });
    expect(read.body).toEqual(JSON.parse(JSON.stringify(summary)));
  });

  test("copied to another workspace under the same connection id, it does not decrypt either", async () => {
    const a = await api.sync.connections.get(ACCOUNT, aId);
    await api.sync.connections.put({ ...a!, business_account_id: "acct-secrets-other" });
    const other = await api.token("acct-secrets-other");
    const tested = await api.request("POST", `${CONNECTIONS_PATH}/${aId}/test`, { token: other });
    expect(tested.status).toBe(200);
    expect(tested.body).toEqual({ reachable: false, authenticated: false, detail: expect.stringMatching(/cannot be decrypted/) });
  });
});
