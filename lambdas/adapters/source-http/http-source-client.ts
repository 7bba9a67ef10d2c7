import ky, { type KyInstance } from "ky";
import {
  SourceAuthError,
  SourceHardError,
  SourceNotImplementedError,
  SourceRedirectError,
  SourceThrottledError,
  SourceTransientError,
  SyncError,
} from "../../domain/core/errors";
import { SOURCE_MAX_RESPONSE_BYTES, SOURCE_REQUEST_TIMEOUT_MS } from "../../domain/core/limits";
import type { Clock } from "../../domain/core/ports/clock";
import { systemClock } from "../../domain/core/ports/clock";
import type { SourceClient, SourceConnection, SourcePage, SourcePageRequest } from "../../domain/core/ports/source-client";
import { parseEnvelope } from "../../domain/source-contract/envelope";
import { discardBody, readBodyCapped } from "./read-body";
import { createSecretRedactor } from "../../domain/source-contract/redact-secret";
import { type DeadlineTimer, systemDeadlineTimer, withinDeadline } from "./request-deadline";
import { retryAfterSeconds } from "../../domain/source-contract/retry-after";
import { sourcePageUrl } from "./source-url";
import { decodeUtf8Body } from "./utf8-body";
import { envelopeSize, sourceAnswersInTime, sourceReachable, sourceServerErrorsRecover } from "../../domain/source-contract/rules/failure-rules";

export interface HttpSourceClientOptions {
  /** The transport; the seam for an SSRF-guarding fetch. A SyncError it throws passes through unchanged. */
  readonly fetch?: typeof fetch;
  /** Budget for the whole request, headers and body. */
  readonly timeoutMs?: number;
  /** Starts the request's deadline; setTimeout by default (tests fire it themselves). */
  readonly deadline?: DeadlineTimer;
  /** Largest 200 body read; a bigger one is a SourceHardError. */
  readonly maxResponseBytes?: number;
  /** For a Retry-After given as an HTTP-date; the wall clock by default. */
  readonly clock?: Clock;
}

/** Error bodies are read only to find their `error` string; more than this is not worth holding. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;
/** A longer Location is shortened in the detail, so the advice after it survives the 300-character cut. */
const LOCATION_MAX_CHARS = 200;
// RFC 6750 tokens are printable ASCII; anything else would make fetch throw an error that quotes the header.
const HEADER_SAFE_TOKEN = /^[\x21-\x7e]+$/;
const utf8 = new TextDecoder();

type Redact = (text: string) => string;

/**
 * The SourceClient over HTTP. One GET per page, no retries here (the state
 * machine retries by error name), no redirect followed, one deadline covering
 * headers and body. Every text taken from a response is redacted of the token.
 */
export function createHttpSourceClient(options: HttpSourceClientOptions = {}): SourceClient {
  const timeoutMs = options.timeoutMs ?? SOURCE_REQUEST_TIMEOUT_MS;
  const deadline = options.deadline ?? systemDeadlineTimer;
  const maxResponseBytes = options.maxResponseBytes ?? SOURCE_MAX_RESPONSE_BYTES;
  const clock = options.clock ?? systemClock;
  const http: KyInstance = ky.create({
    retry: 0,
    throwHttpErrors: false,
    // Our own deadline covers headers and body (request-deadline.ts); ky's would cover the headers only.
    timeout: false,
    // Never followed: a redirect could leave the customer's host with the token or dodge the SSRF guard.
    redirect: "manual",
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const tooLarge = `response body exceeds ${formatBytes(maxResponseBytes)}`;
  const timedOut = (): Error => new SourceTransientError(`request timed out after ${timeoutMs} ms`, { rule: sourceAnswersInTime.id });

  async function fetchPage(connection: SourceConnection, request: SourcePageRequest): Promise<SourcePage> {
    const { token } = connection;
    if (!HEADER_SAFE_TOKEN.test(token)) {
      throw new SourceAuthError("token is empty or has characters that cannot be sent in an HTTP header");
    }
    // Built on first use: only failures need it.
    let redactor: Redact | undefined;
    const redact: Redact = (text) => (redactor ??= createSecretRedactor(token))(text);
    const url = sourcePageUrl(connection.baseUrl, request);
    return withinDeadline(deadline, timeoutMs, timedOut, async (signal) => {
      try {
        const response = await http.get(url, {
          headers: { authorization: `Bearer ${token}`, accept: "application/json" },
          signal,
        });
        if (response.status === 200) return await readPage(response, signal, redact);
        throw await statusError(response, { url, signal, redact, clock });
      } catch (error) {
        // Ours (already redacted), or the injected fetch's own verdict.
        if (error instanceof SyncError) throw error;
        // No cause attached: fetch errors can reference the request and its headers.
        const reason = networkReason(error);
        throw new SourceTransientError(redact(reason), { rule: ruleOfNetworkReason(reason) });
      }
    });
  }

  /** A 200: the capped body as an envelope. Network failures while reading propagate unchanged. */
  async function readPage(response: Response, signal: AbortSignal, redact: Redact): Promise<SourcePage> {
    const bytes = await readBodyCapped(response, maxResponseBytes, signal);
    if (bytes === null) throw new SourceHardError(tooLarge, { rule: envelopeSize.id });
    try {
      return parseEnvelope(parseJson(bytes, response));
    } catch (error) {
      // The detail may quote the source (its content-type), so redact it like an error body.
      if (error instanceof SourceHardError) throw new SourceHardError(redact(error.detail), error.ruleId === null ? undefined : { rule: error.ruleId });
      throw error;
    }
  }

  return { fetchPage };
}

function parseJson(bytes: Uint8Array, response: Response): unknown {
  // Not UTF-8: a SourceHardError that says where (redacted by the caller).
  const text = decodeUtf8Body(bytes);
  try {
    return JSON.parse(text);
  } catch {
    const type = response.headers.get("content-type");
    throw new SourceHardError(`response body is not JSON${type ? ` (content-type ${type})` : ""}`);
  }
}

/** The Source*Error for a non-200 response, per the spec's status table. */
async function statusError(
  response: Response,
  context: { url: string; signal: AbortSignal; redact: Redact; clock: Clock },
): Promise<SyncError> {
  const { status } = response;
  const { url, signal, redact, clock } = context;
  const options = { httpStatus: status };
  if (status >= 300 && status <= 399) {
    discardBody(response);
    return new SourceRedirectError(redirectDetail(response, url, redact), options);
  }
  const detail = redact(await errorDetail(response, signal));
  if (status === 401) return new SourceAuthError(detail, options);
  if (status === 404) return new SourceNotImplementedError(detail, options);
  if (status === 429) return new SourceThrottledError(detail, retryAfterSeconds(response.headers.get("retry-after"), clock.now().getTime()), options);
  if (status >= 500 && status <= 599) return new SourceTransientError(detail, options);
  return new SourceHardError(detail, options);
}

/** What the user needs to fix a moved source: the status and where it points, resolved against the request URL. */
function redirectDetail(response: Response, url: string, redact: Redact): string {
  const advice = "set base_url to the final address";
  const location = response.headers.get("location");
  if (location === null) return `the source answered ${response.status} without a Location header; ${advice}`;
  let target: string;
  try {
    target = new URL(location, url).href;
  } catch {
    target = location;
  }
  target = redact(target);
  if (target.length > LOCATION_MAX_CHARS) target = `${target.slice(0, LOCATION_MAX_CHARS)}...`;
  return `the source answered ${response.status} to ${target}; ${advice}`;
}

/** The body's `error` string when there is one, else `HTTP <status>`. */
async function errorDetail(response: Response, signal: AbortSignal): Promise<string> {
  const fallback = `HTTP ${response.status}`;
  let body: unknown;
  try {
    const bytes = await readBodyCapped(response, ERROR_BODY_MAX_BYTES, signal);
    if (bytes === null) return fallback;
    body = JSON.parse(utf8.decode(bytes));
  } catch {
    // Past the deadline the error body's fate does not matter: the request timed out.
    signal.throwIfAborted();
    // A broken error body does not change what the status already says.
    return fallback;
  }
  if (typeof body === "object" && body !== null && "error" in body) {
    const { error } = body;
    if (typeof error === "string" && error.trim() !== "") return error;
  }
  return fallback;
}

const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset",
  UND_ERR_SOCKET: "connection closed before the response was complete",
  ENOTFOUND: "DNS lookup failed",
  EAI_AGAIN: "DNS lookup failed",
  EAI_FAIL: "DNS lookup failed",
  EAI_NONAME: "DNS lookup failed",
  EAI_NODATA: "DNS lookup failed",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_HEADERS_TIMEOUT: "request timed out",
  UND_ERR_BODY_TIMEOUT: "request timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/**
 * The catalog's rule of a request that got no HTTP answer: connected but not
 * answered in time, connected but broken off, or not connected at all
 * (refused, DNS, unreachable, TLS: the only ones that say the source is down).
 */
function ruleOfNetworkReason(reason: string): string {
  if (reason === "request timed out") return sourceAnswersInTime.id;
  if (reason === "connection reset" || reason === "connection closed before the response was complete") return sourceServerErrorsRecover.id;
  return sourceReachable.id;
}

/** A short reason for a failed request, from the first `code` in the error's cause chain. */
function networkReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth += 1) {
    const code: unknown = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      return NETWORK_REASONS[code] ?? (/TLS|CERT|SSL/i.test(code) ? `TLS failure (${code})` : `network error (${code})`);
    }
    current = (current as { cause?: unknown }).cause;
  }
  return "network error";
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
