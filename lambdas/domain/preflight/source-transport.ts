import { isUtf8 } from "node:buffer";
import { MAX_RETRIES, RETRY_BACKOFF_SECONDS, SOURCE_MAX_RESPONSE_BYTES, SOURCE_REQUEST_TIMEOUT_MS } from "../core/limits";
import { retryAfterSeconds } from "../source-contract/retry-after";
import { PreflightCannotRunError } from "./preflight-errors";
import type { Clock, Sleep } from "../core/ports/clock";
import { RequestWindow } from "./request-window";
import type { SourceResponse } from "../source-contract/source-response";

/** The one fetch the kit needs; the CLI passes global fetch, the service will pass its SSRF-guarded one. */
export type PreflightFetch = (
  url: string,
  init: { readonly method: "GET"; readonly headers: Record<string, string>; readonly signal?: AbortSignal },
) => Promise<Response>;

const decoder = new TextDecoder();

// The service retries these; a 500 is not retried (see the spec's Errors section).
const TRANSIENT = new Set([502, 503, 504]);

function parseJson(text: string): { json: unknown; jsonOk: boolean } {
  try {
    return { json: JSON.parse(text), jsonOk: true };
  } catch {
    return { json: undefined, jsonOk: false };
  }
}

/** One line that says what to do when the source cannot be reached at all. */
function unreachable(url: URL, error: unknown): PreflightCannotRunError {
  const where = url.origin;
  const cause = (error as { cause?: { code?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code ?? "";
  const name = (error as { name?: string }).name;
  if (name === "TimeoutError" || name === "AbortError") {
    return new PreflightCannotRunError(`${where} did not answer within ${SOURCE_REQUEST_TIMEOUT_MS / 1000} s: check that the source is up and fast enough`);
  }
  if (code === "ECONNREFUSED") return new PreflightCannotRunError(`connection refused by ${where}: start the source or fix the base URL`);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new PreflightCannotRunError(`cannot resolve ${url.hostname}: check the host name of the base URL`);
  if (/CERT|SSL|TLS/i.test(code)) return new PreflightCannotRunError(`TLS failed with ${where} (${code}): fix the certificate or use the right scheme in the base URL`);
  return new PreflightCannotRunError(`cannot reach ${where} (${code || (error instanceof Error ? error.message : String(error))}): check the base URL and the network`);
}

export interface TransportOptions {
  readonly fetch: PreflightFetch;
  readonly clock: Clock;
  readonly sleep: Sleep;
  /** Request starts per second, at most. */
  readonly rate: number;
  /** Called with every 429 the source sends, retried or not. */
  readonly onThrottled?: (response: SourceResponse) => void;
}

/**
 * GET only, rate-limited by a sliding window, retrying 429 (honouring
 * Retry-After) and 502/503/504 as the service does.
 */
export class SourceTransport {
  private readonly window: RequestWindow;

  constructor(private readonly options: TransportOptions) {
    this.window = new RequestWindow(options.rate, options.clock, options.sleep);
  }

  /** `authorization` is the whole header value, or null to send none. */
  async get(url: URL, authorization: string | null): Promise<SourceResponse> {
    for (let attempt = 0; ; attempt++) {
      const response = await this.once(url, authorization);
      const retryable = response.status === 429 || TRANSIENT.has(response.status);
      if (response.status === 429) this.options.onThrottled?.(response);
      if (!retryable || attempt >= MAX_RETRIES) return response;
      const backoff = RETRY_BACKOFF_SECONDS[attempt]!;
      const wait = response.status === 429 ? Math.max(retryAfterSeconds(response.retryAfter, this.options.clock.now().getTime()), backoff) : backoff;
      await this.options.sleep(wait * 1000);
    }
  }

  private async once(url: URL, authorization: string | null): Promise<SourceResponse> {
    await this.window.acquire();
    const headers: Record<string, string> = { accept: "application/json" };
    if (authorization !== null) headers["authorization"] = authorization;
    let bytes: Uint8Array;
    let status: number;
    let retryAfter: string | null;
    try {
      const response = await this.options.fetch(url.href, { method: "GET", headers, signal: AbortSignal.timeout(SOURCE_REQUEST_TIMEOUT_MS) });
      status = response.status;
      retryAfter = response.headers.get("retry-after");
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw unreachable(url, error);
    }
    // The service refuses a body this large, so it is no envelope here either.
    if (bytes.byteLength > SOURCE_MAX_RESPONSE_BYTES) {
      const over = `(a body over the service's ${SOURCE_MAX_RESPONSE_BYTES} bytes)`;
      return { request: `GET ${url.href}`, status, retryAfter, text: over, json: undefined, jsonOk: false, utf8: true };
    }
    const text = decoder.decode(bytes);
    return { request: `GET ${url.href}`, status, retryAfter, text, ...parseJson(text), utf8: isUtf8(bytes) };
  }
}
