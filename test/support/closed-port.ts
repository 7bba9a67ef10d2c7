import { createServer } from "node:net";

/** A loopback port nothing listens on (bound, then released): every connection to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as { port: number };
  await new Promise<void>((closed) => server.close(() => closed()));
  return port;
}
