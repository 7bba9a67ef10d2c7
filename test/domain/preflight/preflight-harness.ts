import { exitCodeOf, type PreflightResult } from "../../../lambdas/domain/preflight/report";
import { runPreflight, type PreflightOptions } from "../../../lambdas/domain/preflight/run-preflight";
import { ManualClock } from "../../support/manual-clock";
import { startPreflightSource, type PreflightSource, type SourceKnobs } from "../../support/preflight-source";

export interface KitRun extends PreflightResult {
  readonly exitCode: number;
  readonly source: PreflightSource;
  readonly clock: ManualClock;
  /** Clock time at each request the kit started. */
  readonly starts: number[];
  /** Each request's start and the status it got, in order. */
  readonly exchanges: { readonly at: number; readonly status: number }[];
}

/** Starts a loopback source with `knobs`, runs the kit against it on a manual clock, stops the source. */
export async function runKitAgainst(knobs: SourceKnobs, options: Partial<PreflightOptions> = {}): Promise<KitRun> {
  const source = await startPreflightSource(knobs);
  const clock = new ManualClock();
  const starts: number[] = [];
  const exchanges: { at: number; status: number }[] = [];
  try {
    const result = await runPreflight({
      baseUrl: source.baseUrl,
      token: source.token,
      clock,
      sleep: clock.sleep,
      fetch: async (url, init) => {
        const at = clock.now().getTime();
        starts.push(at);
        const response = await fetch(url, init);
        exchanges.push({ at, status: response.status });
        return response;
      },
      ...options,
    });
    return { ...result, exitCode: exitCodeOf(result.report), source, clock, starts, exchanges };
  } finally {
    await source.close();
  }
}
