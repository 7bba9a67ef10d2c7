import { startReferenceSource } from "../reference-source/start-reference-source";
import { benchClient, bySize, dropTable, freshTable, type BenchContext, type MeasurementResult } from "./bench-env";
import { createInstrumentedSync, type SyncMeasurement } from "./instrumented-sync";
import { handlerMs, isFullLeadsPage } from "./page-sample";
import { TINY_OTHERS, UNBOUND_RATE } from "./page-overhead";
import { cycles } from "./page-stats";
import { median } from "./stats";
import { num, type Table } from "./table";

/**
 * 4. Orchestration overhead: the same leads pages driven (a) by the local
 * state machine (a normal sync) and (b) by calling the same Task handlers in
 * a plain loop (BeginRun once, SyncPage with the returned state, FinishRun).
 * Same deps, source and store; a fresh connection for every run; the two
 * modes alternate so that drift (DynamoDB Local warming up) hits both alike.
 */
export async function measureOrchestration(context: BenchContext): Promise<MeasurementResult> {
  const leadPages = bySize(context, { full: 50, quick: 20, smoke: 3 });
  const rounds = bySize(context, { full: 8, quick: 2, smoke: 1 });
  // Smoke: segments of 2 page tasks, so that both drivers still cross segment boundaries (next_segment) in a few pages.
  const pageTasksPerSegment = context.size === "smoke" ? 2 : undefined;
  const client = benchClient(context.endpoint);
  const tableName = await freshTable(client, "orchestration");
  const source = await startReferenceSource({ sizes: { ...TINY_OTHERS, leads: leadPages * 100 } });
  const sync = createInstrumentedSync({ endpoint: context.endpoint, tableName, ...(pageTasksPerSegment === undefined ? {} : { pageTasksPerSegment }) });
  const runs: { mode: "state machine" | "plain loop"; run: SyncMeasurement }[] = [];
  try {
    for (let round = 1; round <= rounds; round += 1) {
      for (const mode of ["state machine", "plain loop"] as const) {
        context.progress(`orchestration: round ${round}, ${mode}`);
        const connection = await sync.addConnection({ baseUrl: source.url, token: source.token, rateLimit: UNBOUND_RATE });
        const run = mode === "state machine" ? await sync.syncWithStateMachine(connection) : await sync.syncWithPlainLoop(connection);
        if (run.summary.status !== "succeeded") throw new Error(`${mode} run ${run.summary.status}`);
        runs.push({ mode, run });
      }
    }
  } finally {
    await sync.close();
    await source.close();
    await dropTable(client, tableName);
    client.destroy();
  }

  const figures = (mode: string) => {
    const mine = runs.filter((entry) => entry.mode === mode).map((entry) => entry.run);
    const perRun = mine.map((run) => {
      const pages = run.pages.filter((page) => page.entity === "leads");
      // Wall time of the leads pages: first leads task start to last leads task end, per page.
      const first = Math.min(...pages.map((page) => page.startedAt));
      const last = Math.max(...pages.map((page) => page.endedAt));
      return { wallPerPage: (last - first) / pages.length, pages: pages.length };
    });
    const full = mine.flatMap((run) => run.pages.filter(isFullLeadsPage));
    const gaps = mine.flatMap((run) => cycles(run.pages.filter(isFullLeadsPage), run.tasks).gapMs);
    const walls = perRun.map((run) => run.wallPerPage);
    return {
      runs: mine.length,
      pages: perRun[0]?.pages ?? 0,
      wallPerPage: median(walls),
      wallRange: `${num(Math.min(...walls), 1)}-${num(Math.max(...walls), 1)}`,
      task: median(full.map(handlerMs)),
      gap: median(gaps),
    };
  };
  const machine = figures("state machine");
  const loop = figures("plain loop");
  const table: Table = {
    title: `4. Orchestration overhead: ${leadPages} leads pages, local state machine vs a plain loop over the same handlers (rate_limit ${UNBOUND_RATE})`,
    columns: ["driver", "runs", "leads pages per run", "wall per leads page (ms)", "min-max over runs (ms)", "median page task (ms)", "median gap between page tasks (ms)"],
    rows: [
      ["(a) aws-local-stepfunctions (worker thread)", machine.runs, machine.pages, num(machine.wallPerPage, 1), machine.wallRange, num(machine.task, 1), num(machine.gap, 2)],
      ["(b) plain loop: BeginRun, SyncPage...", loop.runs, loop.pages, num(loop.wallPerPage, 1), loop.wallRange, num(loop.task, 1), num(loop.gap, 2)],
      ["(a) - (b): added by the state machine per page", "-", "-", num(machine.wallPerPage - loop.wallPerPage, 1), "-", num(machine.task - loop.task, 1), num(machine.gap - loop.gap, 2)],
    ],
    notes: [
      "wall per leads page = (end of the last leads page task - start of the first) / leads pages, median over the runs of a mode.",
      "gap = from a page task's end to the next task's start: the engine's own time per page (result back to the worker, Route, next Task, input back to the handler).",
      "The gap is the state machine's cost proper; the wall and task differences also carry DynamoDB Local's run-to-run noise (see min-max).",
      "The modes alternate, each run on a fresh connection (every record new); same table, same source, same deps.",
    ],
  };
  return { tables: [table] };
}
