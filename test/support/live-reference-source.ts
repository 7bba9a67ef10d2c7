import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generateDataset, type DatasetSizes } from "../../bin/reference-source/dataset";
import { mutate, type MutationSummary } from "../../bin/reference-source/mutations";
import { seededRandom } from "../../bin/reference-source/prng";
import type { Dataset } from "../../bin/reference-source/records";
import { createSourceApi } from "../../bin/reference-source/source-api";

/**
 * The reference CRM (its generator, its live-changing data, its source API)
 * on loopback, with one thing more than the CLI's: a test can change the data
 * at the moment a given endpoint is first asked for, so the source changes
 * during a run at a point the test chooses, on a gate, never on a timer.
 */
export interface LiveReferenceSource {
  readonly url: string;
  readonly token: string;
  /** The live data: what the next request is answered from. */
  readonly dataset: Dataset;
  /** One round of a live CRM's edits (new leads, stage moves, contact edits, task completions, a soft-delete), stamped `at`. */
  mutate(at: Date): MutationSummary;
  /** Runs `change` once, just before the next request to `path` is answered (what that request returns includes it). */
  beforeNext(path: string, change: () => void): Promise<void>;
  close(): Promise<void>;
}

export async function startLiveReferenceSource(options: { readonly seed: number; readonly sizes: Partial<DatasetSizes>; readonly now: Date }): Promise<LiveReferenceSource> {
  const token = `live-source-token-${options.seed}`;
  const dataset = generateDataset({ seed: options.seed, ...options.sizes, now: options.now });
  const rng = seededRandom(options.seed ^ 0x5bd1e995);
  const answer = createSourceApi({ dataset, token });
  const hooks: { path: string; change: () => void; done: () => void }[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://source.invalid").pathname;
    const at = hooks.findIndex((hook) => hook.path === path);
    if (at >= 0) {
      const [hook] = hooks.splice(at, 1);
      hook!.change();
      hook!.done();
    }
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    dataset,
    mutate: (at) => mutate(dataset, at, rng),
    beforeNext: (path, change) => new Promise<void>((done) => hooks.push({ path, change, done })),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
