import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { GateAnnouncement } from "../../../../lambdas/runtimes/local/crash-gates";

/**
 * The control server behind CRASH_GATES (lambdas/runtimes/local/crash-gates.ts): a real
 * HTTP server on 127.0.0.1. Every announcement is logged and answered "go" at
 * once, except those the test is waiting for, which are held (the runtime's
 * task stays blocked at that point) until the test lets it pass or kills the
 * runtime. Several holds can wait at once: one per run of a runtime's life.
 */

export interface HeldGate {
  readonly announcement: GateAnnouncement;
  /** Lets the runtime pass the point. */
  go(): void;
}

export interface GateControl {
  /** Give the runtime this as CRASH_GATES. */
  readonly url: string;
  /** Every announcement received, in order. */
  readonly log: GateAnnouncement[];
  /** Holds the next announcement that matches (earlier ones pass) and resolves with it; the oldest waiting hold matches first. */
  hold(matches: (announcement: GateAnnouncement) => boolean): Promise<HeldGate>;
  close(): Promise<void>;
}

export async function startGateControl(): Promise<GateControl> {
  const log: GateAnnouncement[] = [];
  const waiters: { matches: (a: GateAnnouncement) => boolean; resolve: (gate: HeldGate) => void }[] = [];
  const go = (res: ServerResponse) => {
    // The runtime may have been killed while held: answering a dead socket is harmless.
    if (!res.destroyed) res.end("go");
  };

  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const announcement = JSON.parse(body) as GateAnnouncement;
      log.push(announcement);
      const index = waiters.findIndex((waiter) => waiter.matches(announcement));
      if (index >= 0) {
        const [waiter] = waiters.splice(index, 1);
        waiter!.resolve({ announcement, go: () => go(res) });
        return;
      }
      go(res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/gate`,
    log,
    hold(matches) {
      return new Promise<HeldGate>((resolve) => waiters.push({ matches, resolve }));
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
