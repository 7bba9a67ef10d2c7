import { afterAll, beforeAll, expect } from "vitest";
import { CONNECTIONS_PATH, createApiHarness, type ApiHarness } from "./api-harness";
import { crmSource, type CrmData } from "./crm-source";
import { gate } from "./gate";
import { startSourceServer, type SourceServer } from "./source-server";

/** A held /leads request: `reached` opens when one arrives; `release()` lets it (and any later one) through. */
export interface LeadsHold {
  readonly reached: Promise<void>;
  release(): void;
}

/**
 * A correct loopback CRM source (crmSource) whose /leads requests can be held
 * at a gate: a test catches a run with a leads page in flight, acts, then
 * releases it. Waits on gates only, never on the clock.
 */
export async function startHoldableCrmSource(
  data: () => CrmData,
  token: string,
): Promise<{ readonly server: SourceServer; holdLeads(): LeadsHold }> {
  let held: { readonly arrived: () => void; readonly opened: Promise<void> } | null = null;
  const serve = crmSource(data, { token });
  const server = await startSourceServer(async (request) => {
    const hold = request.path === "/leads" ? held : null;
    if (hold !== null) {
      hold.arrived();
      await hold.opened;
    }
    return serve(request);
  });
  return {
    server,
    holdLeads() {
      const reached = gate();
      const release = gate();
      held = { arrived: reached.open, opened: release.opened };
      return {
        reached: reached.opened,
        release: () => {
          held = null;
          release.open();
        },
      };
    },
  };
}

/** The onboarding API signed in as one workspace's owner, beside a holdable source: what the cancel and reset tests share. */
export interface HoldableSourceApi {
  readonly api: ApiHarness;
  readonly source: SourceServer;
  /** The owner's session token. */
  readonly owner: string;
  holdLeads(): LeadsHold;
  /** A new connection of the owner's to the source (rate_limit 1000, sync_since 2026-01-01 unless given): its id. */
  newConnection(syncSince?: string): Promise<string>;
  /**
   * Starts a sync of the connection through the API and, while its leads page
   * is held in flight at the source, runs `act` with the run's id; the page is
   * released after `act`, whatever it does.
   */
  whileLeadsInFlight<T>(connectionId: string, act: (runId: string) => Promise<T>): Promise<{ readonly runId: string; readonly acted: T }>;
}

/** Starts both for a test file (beforeAll) and closes them after it; read the fields inside a test or a later hook. */
export function useHoldableSourceApi(data: () => CrmData, token: string, account: string): HoldableSourceApi {
  let ready: Omit<HoldableSourceApi, "newConnection" | "whileLeadsInFlight"> | undefined;
  const get = () => {
    if (ready === undefined) throw new Error("useHoldableSourceApi starts in beforeAll: use it in a test or a later hook");
    return ready;
  };
  beforeAll(async () => {
    const api = await createApiHarness();
    const holdable = await startHoldableCrmSource(data, token);
    ready = { api, source: holdable.server, owner: await api.token(account), holdLeads: holdable.holdLeads };
  });
  afterAll(async () => {
    await ready?.source.close();
    await ready?.api.close();
  });
  return {
    get api() {
      return get().api;
    },
    get source() {
      return get().source;
    },
    get owner() {
      return get().owner;
    },
    holdLeads: () => get().holdLeads(),
    async newConnection(syncSince = "2026-01-01T00:00:00Z") {
      const { api, owner, source } = get();
      const created = await api.request("POST", CONNECTIONS_PATH, {
        token: owner,
        body: { base_url: source.baseUrl, token, rate_limit: 1000, sync_since: syncSince },
      });
      expect(created.status).toBe(201);
      return created.body.id;
    },
    async whileLeadsInFlight(connectionId, act) {
      const { api, owner } = get();
      const hold = get().holdLeads();
      try {
        const runId: string = (await api.request("POST", `${CONNECTIONS_PATH}/${connectionId}/syncs`, { token: owner })).body.id;
        await hold.reached;
        return { runId, acted: await act(runId) };
      } finally {
        hold.release();
      }
    },
  };
}
