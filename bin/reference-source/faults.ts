/**
 * Fault knobs: the misbehaviour a real source shows now and then, on demand,
 * so a consumer can prove it copes (the spec's Errors section says how the
 * service reacts to each). All off by default. Faults are decided by a count
 * of authenticated requests, so a run is repeatable request for request.
 */

export const OPTIONAL_ENDPOINTS = ["tasks", "calls", "events"] as const;
export type OptionalEndpoint = (typeof OPTIONAL_ENDPOINTS)[number];

export interface FaultOptions {
  /** Every Nth request answers 429. 0 = never. */
  readonly throttleEvery: number;
  /** Retry-After of those 429s, in whole seconds. */
  readonly retryAfterSeconds: number;
  /** Length of each burst of 503s. 0 = never. */
  readonly burst503: number;
  /** Requests answered normally before each burst. */
  readonly burstEvery: number;
  /** Delay before every response, errors included. */
  readonly slowMs: number;
  /** Page 2 of /leads carries one lead whose price is not a number: that page fails validation. */
  readonly badRecord: boolean;
  /** Optional endpoints that answer 404, as a source that does not implement them. */
  readonly missing: readonly OptionalEndpoint[];
}

export const NO_FAULTS: FaultOptions = {
  throttleEvery: 0,
  retryAfterSeconds: 2,
  burst503: 0,
  burstEvery: 25,
  slowMs: 0,
  badRecord: false,
  missing: [],
};

export const BAD_PRICE = "not a number";

export interface FaultReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: { readonly error: string };
}

export class Faults {
  readonly options: FaultOptions;
  #requests = 0;

  constructor(options: Partial<FaultOptions> = {}) {
    this.options = { ...NO_FAULTS, ...options };
  }

  /**
   * Counts one authenticated request and says whether it is answered by a
   * fault instead of the data. A 503 burst wins over a 429 on the same request.
   */
  next(): FaultReply | null {
    this.#requests += 1;
    const n = this.#requests;
    const { burst503, burstEvery, throttleEvery, retryAfterSeconds } = this.options;
    // Cycles of `burstEvery` good requests followed by `burst503` failing ones.
    if (burst503 > 0 && (n - 1) % (burstEvery + burst503) >= burstEvery) {
      return { status: 503, body: { error: "temporarily unavailable" } };
    }
    if (throttleEvery > 0 && n % throttleEvery === 0) {
      return {
        status: 429,
        headers: { "retry-after": String(retryAfterSeconds) },
        body: { error: `rate limit exceeded, retry after ${retryAfterSeconds} s` },
      };
    }
    return null;
  }

  isMissing(endpoint: string): boolean {
    return (this.options.missing as readonly string[]).includes(endpoint);
  }

  /** With --bad-record, the first lead of page 2 of /leads comes with a non-numeric price (a copy; the data is untouched). */
  corrupt<T>(endpoint: string, page: number, data: readonly T[]): readonly T[] {
    if (!this.options.badRecord || endpoint !== "leads" || page !== 2 || data.length === 0) return data;
    const [first, ...rest] = data;
    return [{ ...first, price: BAD_PRICE } as T, ...rest];
  }

  /** One line for the start-up banner. */
  describe(): string {
    const { throttleEvery, retryAfterSeconds, burst503, burstEvery, slowMs, badRecord, missing } = this.options;
    const parts: string[] = [];
    if (throttleEvery > 0) parts.push(`429 every ${ordinal(throttleEvery)} request (Retry-After ${retryAfterSeconds} s)`);
    if (burst503 > 0) parts.push(`${burst503}x 503 after every ${burstEvery} requests`);
    if (slowMs > 0) parts.push(`+${slowMs} ms per response`);
    if (badRecord) parts.push("bad price on /leads page 2");
    if (missing.length > 0) parts.push(`${missing.map((name) => `/${name}`).join(" ")} missing`);
    return parts.length === 0 ? "none" : parts.join(", ");
  }
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}
