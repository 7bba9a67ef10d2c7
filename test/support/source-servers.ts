import { afterAll, afterEach } from "vitest";
import { startSourceServer, type SourceHandler, type SourceServer } from "./source-server";

/**
 * Loopback sources for one test file: the returned `serve` starts one, and each
 * is closed after its test (`"each"`) or after the file's tests (`"all"`, for
 * tests that run concurrently).
 */
export function useSourceServers(closeAfter: "each" | "all" = "each"): (handler: SourceHandler) => Promise<SourceServer> {
  const open: SourceServer[] = [];
  (closeAfter === "each" ? afterEach : afterAll)(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return async (handler) => {
    const server = await startSourceServer(handler);
    open.push(server);
    return server;
  };
}
