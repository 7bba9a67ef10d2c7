import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

/**
 * A real HTTP server on 127.0.0.1 that plays a customer's source API in tests.
 * Each request is recorded, then answered by the handler.
 */

export interface SourceRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** 0-based position of this request among all the server has received. */
  readonly requestIndex: number;
}

export type SourceReply =
  | {
      /** Default 200. */
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
      /** Sent as `application/json` with a Content-Length. */
      readonly json?: unknown;
      /**
       * Sent as is: a string (as UTF-8) or raw bytes with a Content-Length, an array as chunks (chunked
       * encoding, no Content-Length).
       */
      readonly body?: string | Uint8Array | readonly string[];
    }
  | { readonly hang: true }
  | { readonly destroy: true };

export type SourceHandler = (request: SourceRequest) => SourceReply | Promise<SourceReply>;

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** Decoded query, as the source sees it. */
  readonly query: Readonly<Record<string, string>>;
  /** The request target as received (path and raw, still-encoded query). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** performance.now() when the request arrived. */
  readonly receivedAt: number;
}

export interface SourceServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Stops listening and ends every socket, hanging ones included. */
  close(): Promise<void>;
}

/** A 200 body in the spec's envelope. */
export function envelope(data: readonly unknown[], hasMore = false): { data: readonly unknown[]; has_more: boolean } {
  return { data, has_more: hasMore };
}

/** Pages listed per path: page N is the Nth list; has_more while a next one exists. */
export type ServedPages = Readonly<Record<string, readonly (readonly unknown[])[]>>;

/** The reply to `request` from `pages`: the page its `page` asks for (empty past the last); a path with none listed, 404 (not implemented). */
export function servedPage(pages: ServedPages, { path, query }: SourceRequest): SourceReply {
  const served = pages[path];
  if (!served) return { status: 404, json: { error: "not implemented" } };
  const page = Number(query.get("page"));
  return { json: envelope(served[page - 1] ?? [], page < served.length) };
}

export async function startSourceServer(handler: SourceHandler): Promise<SourceServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const receivedAt = performance.now();
    const target = new URL(req.url ?? "/", "http://127.0.0.1");
    const requestIndex = requests.length;
    requests.push({
      method: req.method ?? "GET",
      path: target.pathname,
      query: Object.fromEntries(target.searchParams),
      url: req.url ?? "/",
      headers: req.headers,
      receivedAt,
    });
    const request: SourceRequest = {
      method: req.method ?? "GET",
      path: target.pathname,
      query: target.searchParams,
      headers: req.headers,
      requestIndex,
    };
    Promise.resolve()
      .then(() => handler(request))
      .then(
        (reply) => {
          if ("hang" in reply) return;
          if ("destroy" in reply) {
            req.socket.destroy();
            return;
          }
          const headers: Record<string, string> = { ...reply.headers };
          let body: string | Uint8Array | readonly string[] = reply.body ?? "";
          if (reply.json !== undefined) {
            body = JSON.stringify(reply.json);
            headers["content-type"] ??= "application/json";
          }
          // setHeader, not writeHead, so that end(string) still adds the Content-Length.
          res.statusCode = reply.status ?? 200;
          for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
          if (typeof body === "string" || body instanceof Uint8Array) {
            res.end(body);
            return;
          }
          for (const chunk of body) res.write(chunk);
          res.end();
        },
        (error: unknown) => {
          // A broken handler shows up as a 500 that names it, not as a hang.
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: `test handler threw: ${String(error)}` }));
        },
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
