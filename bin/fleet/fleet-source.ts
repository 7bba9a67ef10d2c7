import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { generateDataset } from "../reference-source/dataset";
import { createSourceApi } from "../reference-source/source-api";

/** One page per entity: every collection fits in a page of 100. */
export const SMALL_SIZES = { pipelines: 1, users: 5, contacts: 20, leads: 20, tasks: 10, calls: 10, events: 10 } as const;
export const FLEET_TOKEN = "fleet-token";

/**
 * N small sources behind one loopback server: connection i's base URL is
 * `<url>/c/<i>`, so every request is counted per connection (requests, and
 * requests in flight at once) while one dataset serves them all.
 */
export async function startFleetSource() {
  const api = createSourceApi({ dataset: generateDataset({ seed: 7, ...SMALL_SIZES }), token: FLEET_TOKEN });
  const requests = new Map<string, number>();
  const inFlight = new Map<string, number>();
  let total = 0;
  let maxInFlightPerConnection = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/c\/([^/]+)(\/.*)$/.exec(req.url ?? "");
    if (match === null) {
      res.writeHead(404).end();
      return;
    }
    const id = match[1]!;
    total += 1;
    requests.set(id, (requests.get(id) ?? 0) + 1);
    const now = (inFlight.get(id) ?? 0) + 1;
    inFlight.set(id, now);
    maxInFlightPerConnection = Math.max(maxInFlightPerConnection, now);
    res.once("close", () => inFlight.set(id, (inFlight.get(id) ?? 1) - 1));
    req.url = match[2]!;
    api(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    baseUrlOf: (index: number) => `http://127.0.0.1:${port}/c/${index}`,
    get total() {
      return total;
    },
    get maxInFlightPerConnection() {
      return maxInFlightPerConnection;
    },
    requestsOf: (index: number) => requests.get(String(index)) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
