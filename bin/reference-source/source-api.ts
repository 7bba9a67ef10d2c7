/**
 * The source API itself: one node:http request handler that answers the
 * spec's seven GET endpoints from a dataset. The order of the checks is the
 * order a real implementation should use:
 *
 *   method (405) -> token (401) -> fault knobs (429/503) -> path (404)
 *   -> query (400) -> 200 with the envelope { data, has_more, page, limit }
 *
 * Every answer, errors included, is JSON with a string `error` on failure.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseCollectionQuery } from "./collection-query";
import { comparedAt, ENDPOINTS } from "./endpoints";
import { Faults } from "./faults";
import { changedSince, pageOf } from "./paging";
import { ReadSnapshots } from "./read-snapshots";
import type { Dataset, SourceRecord } from "./records";

/** One request as the source saw it. */
export interface RequestLogEntry {
  readonly method: string;
  readonly path: string;
  /** Decoded query parameters. */
  readonly query: Readonly<Record<string, string>>;
  /** Status of the answer sent. */
  readonly status: number;
  /** Epoch ms when the request arrived. */
  readonly receivedAt: number;
}

export interface SourceApiOptions {
  /** Read on every request, so changes to it (mutations) show in the next read. */
  readonly dataset: Dataset;
  /** The one accepted Bearer token. */
  readonly token: string;
  readonly faults?: Faults;
  /** Called once per request, when its answer is sent. */
  readonly onResponse?: (entry: RequestLogEntry) => void;
  /** Holds an answer back `ms` (the slow-ms fault); a real timer unless a test drives it. */
  readonly delay?: (send: () => void, ms: number) => void;
}

/** The slow-ms fault's timer. unref: a pending slow answer alone must not keep a stopped server's process alive. */
const timerDelay = (send: () => void, ms: number): void => void setTimeout(send, ms).unref();

interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: unknown;
}

const error = (status: number, message: string, headers?: Readonly<Record<string, string>>): Reply => ({
  status,
  body: { error: message },
  ...(headers ? { headers } : {}),
});

const SERVED_PATHS = [...ENDPOINTS.keys()].join(", ");

/**
 * Compares the Authorization header with `Bearer <token>`, exactly (the spec:
 * a one-character change must be a 401), and in constant time:
 * hashing first gives equal-length inputs, so neither the length nor the
 * first differing character leaks through the response time.
 */
function bearerMatches(header: string | undefined, token: string): boolean {
  const digest = (text: string): Buffer => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(header ?? ""), digest(`Bearer ${token}`));
}

export function createSourceApi(options: SourceApiOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { dataset, token } = options;
  const faults = options.faults ?? new Faults();
  const snapshots = new ReadSnapshots<SourceRecord>();

  function answer(req: IncomingMessage, url: URL): Reply {
    if (req.method !== "GET") {
      return error(405, `method ${req.method ?? ""} not allowed: the source API is read-only`, { allow: "GET" });
    }
    // Same answer for a missing and a wrong token: nothing tells a caller which it was.
    if (!bearerMatches(req.headers.authorization, token)) return error(401, "invalid token");

    const fault = faults.next();
    if (fault) return fault;

    const endpoint = ENDPOINTS.get(url.pathname);
    if (endpoint === undefined) return error(404, `no endpoint ${url.pathname}; this source serves ${SERVED_PATHS}`);
    // A 404 on an optional endpoint tells the service "not implemented": it skips the entity cleanly.
    if (faults.isMissing(endpoint.name)) return error(404, "not implemented");

    const parsed = parseCollectionQuery(url.searchParams, { incremental: endpoint.incremental });
    if (!parsed.ok) return error(400, parsed.error);
    const { page, limit, updatedSince } = parsed.query;

    const all = endpoint.records(dataset);
    const ordered = endpoint.incremental
      ? snapshots.records(`${endpoint.name}?updated_since=${updatedSince ?? ""}`, page, () =>
          changedSince(all, updatedSince, comparedAt),
        )
      : all; // /pipelines and /users: the full list in its own order, every time
    const { data, hasMore } = pageOf(ordered, page, limit);
    return { status: 200, body: { data: faults.corrupt(endpoint.name, page, data), has_more: hasMore, page, limit } };
  }

  return (req, res) => {
    const receivedAt = Date.now();
    const url = new URL(req.url ?? "/", "http://source.invalid");
    let reply: Reply;
    try {
      reply = answer(req, url);
    } catch (cause) {
      // A bug here must show as a 500 that says so, not as a hung request.
      reply = error(500, `reference source failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    }
    const send = (): void => {
      options.onResponse?.({
        method: req.method ?? "",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        status: reply.status,
        receivedAt,
      });
      if (res.destroyed) return; // the client gave up while we were being slow
      const body = JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        ...reply.headers,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
    };
    const { slowMs } = faults.options;
    if (slowMs > 0) (options.delay ?? timerDelay)(send, slowMs);
    else send();
  };
}
