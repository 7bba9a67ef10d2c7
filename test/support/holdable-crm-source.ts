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
