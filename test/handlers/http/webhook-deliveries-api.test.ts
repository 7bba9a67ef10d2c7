import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ResolveAll } from "../../../lambdas/adapters/source-http/ssrf/pinned-lookup";
import { createHttpWebhookSender } from "../../../lambdas/adapters/webhook-http/http-webhook-sender";
import type { Clock } from "../../../lambdas/domain/core/ports/clock";
import { WEBHOOK_ATTEMPT_OFFSETS_SECONDS, WEBHOOK_DELIVERIES_LISTED } from "../../../lambdas/domain/webhooks/webhook-limits";
import { EVENT_ID_HEADER, newWebhookSecret, SIGNATURE_HEADER, verifySignature } from "../../../lambdas/domain/webhooks/webhook-signature";
import { contactRecord, leadRecord, pipelineRecord, userRecord } from "../../builders/source-records";
import { runFinished } from "../../builders/service-events";
import { manualDeadline } from "../../adapters/source-http/manual-deadline";
import { createApiHarness, CONNECTIONS_PATH, type ApiHarness } from "../../support/api-harness";
import { crmSource } from "../../support/crm-source";
import { startSourceServer, type SourceServer } from "../../support/source-server";
import { startWebhookReceiver, type ReceiverReply, type WebhookReceiver } from "../../support/webhook-receiver";

/**
 * Issue 36 item 3: each event reaches the owner's endpoints signed, retried with backoff up to the stated bound, the
 * attempts listed. A real receiver on loopback; time moves by the test's clock, a hang is cut by the test's deadline.
 */
const WEBHOOKS = "/api/v1/crm/custom/webhooks";
const SOURCE_TOKEN = "src-webhooks-token-7c2e91";
const LEAD_NAME = "Secret merger with Initech";
const CONTACT_EMAIL = "ceo-private@initech.example";
const T0 = Date.parse("2026-03-02T09:00:00.000Z");
let time = T0;
const clock: Clock = { now: () => new Date(time) };
const deadline = manualDeadline();
// The resolver the SSRF guard asks: one name resolves to a private address, as a rebinding attacker's would.
const lookup: ResolveAll = async (hostname) => {
  if (hostname === "hooks.private.test") return [{ address: "10.0.0.7", family: 4 }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: "ENOTFOUND" });
};
const data = {
  pipelines: [pipelineRecord({ id: "pipeline-1" })],
  users: [userRecord()],
  contacts: [contactRecord({ email: CONTACT_EMAIL })],
  leads: [leadRecord({ name: LEAD_NAME, custom_fields: { deal_code: "PROJECT-GOLDFINCH" } })],
};

let api: ApiHarness;
let source: SourceServer;
const receivers: WebhookReceiver[] = [];
const secrets: string[] = [];

beforeAll(async () => {
  api = await createApiHarness({ clock, webhookSender: createHttpWebhookSender({ allowLoopback: true, deadline: deadline.timer, lookup }) });
  source = await startSourceServer(crmSource(() => data, { token: SOURCE_TOKEN }));
});
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await source.close();
  await api.close();
});

/** A workspace with a connection on the source and one endpoint (a receiver answering `reply`, or `url`). */
async function workspace(account: string, options: { reply?: (index: number) => ReceiverReply; url?: string; types?: string[] } = {}) {
  const owner = await api.token(account);
  const connection = await api.request("POST", CONNECTIONS_PATH, { token: owner, body: { base_url: source.baseUrl, token: SOURCE_TOKEN, rate_limit: 1000, sync_since: "2026-01-01T00:00:00Z" } });
  const receiver = await startWebhookReceiver((_delivery, index) => options.reply?.(index) ?? { status: 204 });
  receivers.push(receiver);
  const created = await api.request("POST", WEBHOOKS, { token: owner, body: { url: options.url ?? receiver.url, event_types: options.types ?? ["run.finished"] } });
  expect(created.status, created.text).toBe(201);
  secrets.push(created.body.secret);
  return { owner, connectionId: connection.body.id as string, receiver, endpointId: created.body.id as string, secret: created.body.secret as string };
}

/** A sync run to its end; its events are then handed to the webhooks (their first attempts may still be in flight). */
async function sync(owner: string, connectionId: string) {
  const run = await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner });
  return api.waitForRun(connectionId, run.body.id);
}

const deliveries = async (owner: string, endpointId: string) => (await api.request("GET", `${WEBHOOKS}/${endpointId}/deliveries`, { token: owner })).body.data;

/** Moves the clock to `at` and makes the attempts due then (the runtime's minute timer). */
async function sweepAt(at: number) {
  time = at;
  return api.sync.webhooks.sweep();
}

describe("deliveries to a receiver on loopback", () => {
  test("each delivery's signature verifies with the secret; run finished and changes committed (counts and the feed's cursor range, no records) reach the endpoint subscribed to both", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-ok", { types: ["run.finished", "changes.committed"] });
    const run = await sync(hook.owner, hook.connectionId);
    await api.sync.webhooks.idle();
    expect(hook.receiver.received).toHaveLength(2);
    for (const delivery of hook.receiver.received) {
      const body = delivery.body.toString("utf8");
      expect(verifySignature(hook.secret, String(delivery.headers[SIGNATURE_HEADER.toLowerCase()]), body, clock.now())).toBe(true);
      expect(verifySignature(newWebhookSecret(), String(delivery.headers[SIGNATURE_HEADER.toLowerCase()]), body, clock.now())).toBe(false);
      expect(delivery.headers[EVENT_ID_HEADER.toLowerCase()]).toBe(JSON.parse(body).id);
      expect(delivery.headers["content-type"]).toBe("application/json");
    }
    const bodies = hook.receiver.received.map((d) => JSON.parse(d.body.toString("utf8")));
    const changes = bodies.find((b) => b.type === "changes.committed");
    const written = run.entities.reduce((sum: number, row: { records: number }) => sum + row.records, 0);
    expect(changes.data).toMatchObject({ connection_id: hook.connectionId, run_id: run.id, cause: "sync", records: written });
    // Its cursors: from the first reads this run's changes (the feed's own count of them), to the last reads nothing after.
    const fromFirst = await api.request("GET", `${CONNECTIONS_PATH}/${hook.connectionId}/changes?limit=1000&cursor=${changes.data.cursor_from}`, { token: hook.owner });
    expect(fromFirst.status, fromFirst.text).toBe(200);
    expect(fromFirst.body.data.length).toBeGreaterThan(0);
    expect(fromFirst.body.data.every((change: { run_id: string }) => change.run_id === run.id)).toBe(true);
    const wholeFeed = await api.request("GET", `${CONNECTIONS_PATH}/${hook.connectionId}/changes?limit=1000`, { token: hook.owner });
    expect(fromFirst.body.data).toEqual(wholeFeed.body.data);
    const after = await api.request("GET", `${CONNECTIONS_PATH}/${hook.connectionId}/changes?cursor=${changes.data.cursor_to}`, { token: hook.owner });
    expect(after.body.data).toEqual([]);

    expect(bodies.find((b) => b.type === "run.finished").data).toMatchObject({ run_id: run.id, status: "succeeded" });
    const listed = await deliveries(hook.owner, hook.endpointId);
    expect(listed.map((row: Record<string, unknown>) => [row["event_type"], row["attempt"], row["status_code"], row["error"], row["outcome"], row["next_attempt_at"]]).sort()).toEqual([
      ["changes.committed", 1, 204, null, "delivered", null],
      ["run.finished", 1, 204, null, "delivered", null],
    ]);

    // A second run, a minute later (the feed orders runs by their ids' time stamps), that writes a new lead besides
    // what it re-reads: its range holds its own changes alone, and the first run's cursor_to leads to exactly them.
    data.leads.push(leadRecord({ id: "lead-webhooks-2", name: "Another", updated_at: "2026-02-20T08:00:00Z" }));
    time = T0 + 60_000;
    const second = await sync(hook.owner, hook.connectionId);
    await api.sync.webhooks.idle();
    const secondChanges = hook.receiver.received.map((d) => JSON.parse(d.body.toString("utf8"))).find((b) => b.type === "changes.committed" && b.data.run_id === second.id);
    const read = async (cursor: string) => (await api.request("GET", `${CONNECTIONS_PATH}/${hook.connectionId}/changes?limit=1000&cursor=${cursor}`, { token: hook.owner })).body.data;
    const secondRun = await read(secondChanges.data.cursor_from);
    expect(secondRun.every((change: { run_id: string }) => change.run_id === second.id)).toBe(true);
    expect(secondRun.map((change: { entity: string; id: string }) => `${change.entity} ${change.id}`)).toContain("leads lead-webhooks-2");
    expect(await read(changes.data.cursor_to)).toEqual(secondRun);
    expect(await read(secondChanges.data.cursor_to)).toEqual([]);
  });

  test("an audit's end reaches an endpoint subscribed to audit finished, signed, with the audit's id; one that heals nothing commits no changes", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-audit", { types: ["audit.finished", "changes.committed"] });
    await sync(hook.owner, hook.connectionId);
    await api.sync.webhooks.idle();
    // The sync's own: its changes, not its end (not subscribed).
    expect(hook.receiver.received.map((d) => JSON.parse(d.body.toString("utf8")).type)).toEqual(["changes.committed"]);
    const audit = await api.request("POST", `${CONNECTIONS_PATH}/${hook.connectionId}/audits`, { token: hook.owner });
    expect(audit.status, audit.text).toBe(202);
    await api.waitForRun(hook.connectionId, audit.body.id);
    await api.sync.webhooks.idle();
    expect(hook.receiver.received).toHaveLength(2);
    const delivery = hook.receiver.received[1];
    const body = delivery!.body.toString("utf8");
    expect(verifySignature(hook.secret, String(delivery!.headers[SIGNATURE_HEADER.toLowerCase()]), body, clock.now())).toBe(true);
    expect(JSON.parse(body)).toMatchObject({ type: "audit.finished", data: { audit_id: audit.body.id, connection_id: hook.connectionId, healed: { missed: 0, stale: 0, changed_without_advancing: 0 } } });
  });

  test("retries after a 500 follow the schedule (never before an attempt is due) and stop at the stated bound: 5 attempts, the last at 1 h", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-500", { reply: () => ({ status: 500 }) });
    await sync(hook.owner, hook.connectionId);
    await api.sync.webhooks.idle();
    expect(hook.receiver.received).toHaveLength(1);
    for (const [index, offset] of WEBHOOK_ATTEMPT_OFFSETS_SECONDS.slice(1).entries()) {
      expect(await sweepAt(T0 + offset * 1000 - 1)).toEqual([]);
      expect(hook.receiver.received).toHaveLength(index + 1);
      await sweepAt(T0 + offset * 1000);
      expect(hook.receiver.received).toHaveLength(index + 2);
    }
    expect(await sweepAt(T0 + 48 * 3_600_000)).toEqual([]);
    expect(hook.receiver.received).toHaveLength(5);
    const listed = await deliveries(hook.owner, hook.endpointId);
    expect(listed.map((row: Record<string, unknown>) => [row["attempt"], row["status_code"], row["outcome"], row["next_attempt_at"]])).toEqual([
      [5, 500, "failed", null],
      [4, 500, "retrying", new Date(T0 + 3_600_000).toISOString()],
      [3, 500, "retrying", new Date(T0 + 600_000).toISOString()],
      [2, 500, "retrying", new Date(T0 + 120_000).toISOString()],
      [1, 500, "retrying", new Date(T0 + 30_000).toISOString()],
    ]);
  });

  test("a receiver that hangs is cut by the request timeout each time, and the retries stop at the same bound", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-hang", { reply: () => ({ hang: true }) });
    await sync(hook.owner, hook.connectionId);
    const fireHanging = async (count: number) => {
      await hook.receiver.receivedCount(count);
      const open = deadline.started.filter((d) => !d.stopped);
      expect(open).toHaveLength(1);
      open[0]!.fire();
    };
    await fireHanging(1);
    await api.sync.webhooks.idle();
    for (const [index, offset] of WEBHOOK_ATTEMPT_OFFSETS_SECONDS.slice(1).entries()) {
      const sweeping = sweepAt(T0 + offset * 1000);
      await fireHanging(index + 2);
      await sweeping;
    }
    expect(await sweepAt(T0 + 48 * 3_600_000)).toEqual([]);
    expect(hook.receiver.received).toHaveLength(5);
    const listed = await deliveries(hook.owner, hook.endpointId);
    expect(listed.map((row: Record<string, any>) => [row["attempt"], row["status_code"], row["error"], row["failure"]?.rule, row["outcome"]])).toEqual([
      [5, null, "WebhookTimeoutError", "webhook.answers", "failed"],
      ...[4, 3, 2, 1].map((attempt) => [attempt, null, "WebhookTimeoutError", "webhook.answers", "retrying"]),
    ]);
  });

  test("a receiver that recovers gets the retry: 503, then 200 at 30 s, and nothing more is sent", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-recover", { reply: (index) => ({ status: index === 0 ? 503 : 200 }) });
    await sync(hook.owner, hook.connectionId);
    await api.sync.webhooks.idle();
    await sweepAt(T0 + 30_000);
    expect(await sweepAt(T0 + 48 * 3_600_000)).toEqual([]);
    expect(hook.receiver.received).toHaveLength(2);
    expect(hook.receiver.received[0]!.body.equals(hook.receiver.received[1]!.body)).toBe(true);
    expect((await deliveries(hook.owner, hook.endpointId)).map((row: Record<string, any>) => [row["attempt"], row["status_code"], row["failure"]?.rule ?? null, row["outcome"]])).toEqual([
      [2, 200, null, "delivered"],
      [1, 503, "webhook.answers", "retrying"],
    ]);
  });

  test("an endpoint whose name resolves to a private address is refused at delivery (resolver stubbed): never connected, never retried", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-private", { url: "http://hooks.private.test/in" });
    await sync(hook.owner, hook.connectionId);
    await api.sync.webhooks.idle();
    expect(await sweepAt(T0 + 48 * 3_600_000)).toEqual([]);
    expect((await deliveries(hook.owner, hook.endpointId)).map((row: Record<string, any>) => [row["attempt"], row["status_code"], row["error"], row["failure"]?.rule, row["outcome"], row["next_attempt_at"]])).toEqual([
      [1, null, "WebhookAddressRefusedError", "webhook.address-public", "failed", null],
    ]);
  });

  test("after a rotation the next attempt is signed with the new secret only", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-rotate", { reply: (index) => ({ status: index === 0 ? 500 : 204 }) });
    await sync(hook.owner, hook.connectionId);
    await api.sync.webhooks.idle();
    const rotated = (await api.request("POST", `${WEBHOOKS}/${hook.endpointId}/rotate`, { token: hook.owner })).body.secret as string;
    secrets.push(rotated);
    await sweepAt(T0 + 30_000);
    const [first, second] = hook.receiver.received.map((d) => ({ header: String(d.headers[SIGNATURE_HEADER.toLowerCase()]), body: d.body.toString("utf8") }));
    expect(verifySignature(hook.secret, first!.header, first!.body, new Date(T0))).toBe(true);
    expect(verifySignature(rotated, second!.header, second!.body, clock.now())).toBe(true);
    expect(verifySignature(hook.secret, second!.header, second!.body, clock.now())).toBe(false);
  });

  test("a delivery still due when its endpoint is deleted is dropped unsent", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-deleted", { reply: () => ({ status: 500 }) });
    await sync(hook.owner, hook.connectionId);
    await api.sync.webhooks.idle();
    expect((await api.request("DELETE", `${WEBHOOKS}/${hook.endpointId}`, { token: hook.owner })).status).toBe(204);
    expect(await sweepAt(T0 + 30_000)).toEqual([]);
    expect(await sweepAt(T0 + 48 * 3_600_000)).toEqual([]);
    expect(hook.receiver.received).toHaveLength(1);
  });

  test("an event handed over twice (a retried rule target) is one delivery; an endpoint not subscribed to its type gets none", async () => {
    time = T0;
    const hook = await workspace("acct-deliver-once");
    const quiet = await workspace("acct-deliver-once-2", { types: ["connection.stale"] });
    for (const account of ["acct-deliver-once", "acct-deliver-once"]) await api.sync.webhooks.publisher.publish(runFinished({ records: 0, account }));
    await api.sync.webhooks.publisher.publish(runFinished({ records: 0, account: "acct-deliver-once-2" }));
    await api.sync.webhooks.idle();
    expect(hook.receiver.received).toHaveLength(1);
    expect(quiet.receiver.received).toHaveLength(0);
  });

  test(`the list keeps the last ${WEBHOOK_DELIVERIES_LISTED} attempts, newest first`, async () => {
    time = T0;
    const hook = await workspace("acct-deliver-many");
    for (let i = 0; i < WEBHOOK_DELIVERIES_LISTED + 1; i += 1) {
      time = T0 + i * 1000;
      const event = runFinished({ records: 0, account: "acct-deliver-many" });
      await api.sync.webhooks.publisher.publish({ ...event, detail: { ...event.detail, event_id: `evt-${i}` } } as typeof event);
      await api.sync.webhooks.idle();
    }
    const listed = await deliveries(hook.owner, hook.endpointId);
    expect(listed).toHaveLength(WEBHOOK_DELIVERIES_LISTED);
    expect(listed[0].event_id).toBe(`evt-${WEBHOOK_DELIVERIES_LISTED}`);
    expect(listed.at(-1).event_id).toBe("evt-1");
  });

  test("no source token, webhook secret or record (names, emails, custom values) is in any delivery's bytes, nor any log line", () => {
    const sent = receivers.flatMap((r) => r.received.map((d) => `${JSON.stringify(d.headers)}\n${d.body.toString("utf8")}`)).join("\n");
    expect(sent.length).toBeGreaterThan(1000);
    for (const forbidden of [SOURCE_TOKEN, LEAD_NAME, CONTACT_EMAIL, "PROJECT-GOLDFINCH", "whsec_", ...secrets.map((s) => s.slice(6, 18))]) {
      expect(sent).not.toContain(forbidden);
    }
    const logged = JSON.stringify(api.logger.lines);
    for (const secret of secrets) expect(logged).not.toContain(secret.slice(6, 18));
  });
});
