import { afterAll, beforeAll, beforeEach } from "vitest";
import { crmSource, type CrmData } from "./crm-source";
import { gate } from "./gate";
import { startSourceServer, type SourceReply, type SourceRequest, type SourceServer } from "./source-server";

/** Answers a request first when it returns a reply (it may also hold the request at a gate); undefined lets the source answer. */
export type SourceFault = (request: SourceRequest) => SourceReply | undefined | Promise<SourceReply | undefined>;

/** The source a test scripts: set `data` and `fault` in the test; `server` is its loopback server. */
export interface ScriptedCrmSource {
  readonly server: SourceServer;
  data: CrmData;
  fault: SourceFault;
}

/**
 * One correct loopback CRM source (crmSource) for a test file, started before
 * its tests and closed after them. Before each test it serves `freshData()`,
 * has no fault and has recorded no request.
 */
export function useScriptedCrmSource(token: string, freshData: () => CrmData): ScriptedCrmSource {
  let server: SourceServer | undefined;
  const script: ScriptedCrmSource = {
    data: {},
    fault: () => undefined,
    get server(): SourceServer {
      if (server === undefined) throw new Error("the scripted source starts in beforeAll: use it in a test or a later hook");
      return server;
    },
  };
  beforeAll(async () => {
    const serve = crmSource(() => script.data, { token });
    server = await startSourceServer(async (request) => (await script.fault(request)) ?? serve(request));
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    script.data = freshData();
    script.fault = () => undefined;
    if (server !== undefined) server.requests.length = 0;
  });
  return script;
}

/**
 * Holds the first request for `page` of `path` until `release()` (later ones
 * pass); `arrived` opens when it has come in. It is the source's fault until
 * the test sets another.
 */
export function holdFirstRequest(source: ScriptedCrmSource, path: string, page: number): { readonly arrived: Promise<void>; release(): void } {
  const arrived = gate();
  const released = gate();
  let held = false;
  source.fault = async (request) => {
    if (request.path === path && request.query.get("page") === String(page) && !held) {
      held = true;
      arrived.open();
      await released.opened;
    }
    return undefined;
  };
  return { arrived: arrived.opened, release: () => released.open() };
}
