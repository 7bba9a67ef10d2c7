import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One delivery as the receiver got it: the exact bytes of the body, and the headers. */
export interface ReceivedDelivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** What the receiver answers a delivery: a status, or nothing at all (it hangs until closed). */
export type ReceiverReply = { readonly status: number } | { readonly hang: true };

export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT/hooks`. */
  readonly url: string;
  readonly received: ReceivedDelivery[];
  /** Resolves when the receiver has got `count` deliveries in all (a gate, not a poll). */
  receivedCount(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP server on loopback that plays an owner's webhook endpoint; `reply` decides each answer, in order. */
export async function startWebhookReceiver(reply: (delivery: ReceivedDelivery, index: number) => ReceiverReply = () => ({ status: 204 })): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const waiting: { count: number; open: () => void }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const delivery = { path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks) };
      received.push(delivery);
      const answer = reply(delivery, received.length - 1);
      for (const wait of waiting.filter((w) => received.length >= w.count)) wait.open();
      if ("hang" in answer) return;
      response.writeHead(answer.status).end();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    receivedCount: (count) =>
      received.length >= count ? Promise.resolve() : new Promise<void>((open) => waiting.push({ count, open })),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
