import { exitCodeOf, type PreflightResult } from "../../lambdas/preflight/report";
import { runPreflight, type PreflightOptions } from "../../lambdas/preflight/run-preflight";
import { ManualClock } from "../support/manual-clock";
import { startPreflightSource, type PreflightSource, type SourceKnobs } from "../support/preflight-source";

export interface KitRun extends PreflightResult {
  readonly exitCode: number;
  readonly source: PreflightSource;
  readonly clock: ManualClock;
  /** Clock time at each request the kit started. */
  readonly starts: number[];
}

/** Starts a loopback source with `knobs`, runs the kit against it on a manual clock, stops the source. */
export async function runKitAgainst(knobs: SourceKnobs, options: Partial<PreflightOptions> = {}): Promise<KitRun> {
  const source = await startPreflightSource(knobs);
  const clock = new ManualClock();
  const starts: number[] = [];
  try {
    const result = await runPreflight({
      baseUrl: source.baseUrl,
      token: source.token,
      clock,
      fetch: (url, init) => {
        starts.push(clock.now());
        return fetch(url, init);
      },
      ...options,
    });
    return { ...result, exitCode: exitCodeOf(result.report), source, clock, starts };
  } finally {
    await source.close();
  }
}
