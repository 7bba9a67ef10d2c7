import { contactRecord, pipelineRecord, userRecord } from "../builders/source-records";
import { crmSource } from "./crm-source";
import { startSourceServer } from "./source-server";

/**
 * A source API in its own process, for tests that measure time at the
 * source: arrival times stamped here are not delayed by the test process's
 * busy event loop. GET /__log returns what arrived.
 */
const config = JSON.parse(process.env["CHILD_SOURCE_CONFIG"] ?? "{}") as { tokens: string[]; contacts: number };
const stamp = (minute: number) => new Date(Date.UTC(2026, 4, 1, 0, minute)).toISOString();
const data = {
  pipelines: [pipelineRecord()],
  users: [userRecord()],
  contacts: Array.from({ length: config.contacts }, (_, i) => contactRecord({ id: `c${i}`, updated_at: stamp(i) })),
  leads: [],
};
const arrivals: Array<{ authorization: string; path: string; at: number }> = [];
const handlers = new Map(config.tokens.map((token) => [`Bearer ${token}`, crmSource(() => data, { token })]));

const server = await startSourceServer((request) => {
  if (request.path === "/__log") return { json: arrivals };
  const authorization = String(request.headers.authorization ?? "");
  arrivals.push({ authorization, path: request.path, at: performance.timeOrigin + performance.now() });
  return (handlers.get(authorization) ?? crmSource(() => data, { token: "\u0000" }))(request);
});
process.stdout.write(`listening ${server.baseUrl}\n`);
