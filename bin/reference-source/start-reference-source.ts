/**
 * Runs the reference source API in this process: what the CLI
 * (bin/reference-source.ts), the demo, tests and benchmarks call.
 *
 *   const source = await startReferenceSource({ seed: 7, sizes: { leads: 300 } });
 *   // source.url, source.token, source.dataset, source.requests
 *   await source.close();
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generateDataset, type DatasetSizes } from "./dataset";
import { Faults, type FaultOptions } from "./faults";
import { mutate, type MutationSummary } from "./mutations";
import { seededRandom } from "./prng";
import type { Dataset } from "./records";
import { createSourceApi, type RequestLogEntry } from "./source-api";

export const DEFAULT_TOKEN = "reference-token";
export const DEFAULT_SEED = 42;
export const DEFAULT_HOST = "127.0.0.1";

export interface ReferenceSourceOptions {
  /** Default 0: any free port (the CLI defaults to 4000). */
  readonly port?: number;
  /** Default 127.0.0.1: reachable from this machine only. */
  readonly host?: string;
  /** The accepted Bearer token; default `reference-token`. */
  readonly token?: string;
  /** Default 42. */
  readonly seed?: number;
  /** Record counts per endpoint; see DEFAULT_SIZES. */
  readonly sizes?: Partial<DatasetSizes>;
  /** The end of the generated history; default the start time. */
  readonly now?: Date;
  readonly faults?: Partial<FaultOptions>;
  /** Apply one round of changes every this many seconds; default 0 = never (the CLI defaults to 30). */
  readonly mutateEverySeconds?: number;
  /** Keep a log of every request in `requests`; default true. Off for a long-running process. */
  readonly recordRequests?: boolean;
  /** How slow answers are held back (tests drive it instead of a timer). */
  readonly delay?: (send: () => void, ms: number) => void;
}

export interface ReferenceSource {
  /** `http://127.0.0.1:PORT`: the base URL to register, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** The live data: what the next request is answered from. */
  readonly dataset: Dataset;
  /** Every request, in the order answered (empty when recordRequests is false). */
  readonly requests: RequestLogEntry[];
  readonly faults: Faults;
  /** Applies one round of changes now (as the timer does) and says what changed. */
  mutate(now?: Date): MutationSummary;
  /** Stops the timer, stops listening and ends every open connection. */
  close(): Promise<void>;
}

export async function startReferenceSource(options: ReferenceSourceOptions = {}): Promise<ReferenceSource> {
  const seed = options.seed ?? DEFAULT_SEED;
  const token = options.token ?? DEFAULT_TOKEN;
  const host = options.host ?? DEFAULT_HOST;
  const dataset = generateDataset({ seed, ...options.sizes, ...(options.now ? { now: options.now } : {}) });
  const faults = new Faults(options.faults);
  const requests: RequestLogEntry[] = [];
  const recordRequests = options.recordRequests ?? true;
  // Its own stream, derived from the seed: the same seed replays the same sequence of changes.
  const mutationRng = seededRandom(seed ^ 0x5bd1e995);
  const mutateNow = (now: Date = new Date()): MutationSummary => mutate(dataset, now, mutationRng);

  const server = createServer(
    createSourceApi({
      dataset,
      token,
      faults,
      ...(options.delay ? { delay: options.delay } : {}),
      ...(recordRequests ? { onResponse: (entry: RequestLogEntry) => void requests.push(entry) } : {}),
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  const mutateEvery = options.mutateEverySeconds ?? 0;
  const timer = mutateEvery > 0 ? setInterval(() => mutateNow(), mutateEvery * 1000) : undefined;
  timer?.unref(); // the server keeps the process alive, not the timer

  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host; // an IPv6 literal needs brackets in a URL
  return {
    url: `http://${urlHost}:${port}`,
    port,
    token,
    dataset,
    requests,
    faults,
    mutate: mutateNow,
    close: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(timer);
        server.close((closeError) => (closeError ? reject(closeError) : resolve()));
        server.closeAllConnections();
      }),
  };
}
