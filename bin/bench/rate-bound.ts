import { DEFAULT_SIZES } from "../reference-source/dataset";
import type { RunSummary } from "../../lambdas/domain/core/run-summary";
import { SLOT_LATE_MS } from "../../lambdas/domain/core/limits";
import { RATE_WINDOW_MARGIN_MS, RATE_WINDOW_MS } from "../../lambdas/adapters/dynamodb/rate-limit/dynamodb-rate-limiter";
import { bySize, dropTable, benchClient, freshTable, type BenchContext, type MeasurementResult } from "./bench-env";
import { createInstrumentedSync } from "./instrumented-sync";
import { limiterWaitMs, staleSlots, type PageSample } from "./page-sample";
import { TINY_OTHERS } from "./page-overhead";
import { breakdown, cycles } from "./page-stats";
import { startSourceProcess } from "./source-process";
import { busiestWindow, mean, median, quantile } from "./stats";
import { boundaryCostMs, requestTimeline, segmentGaps, windows } from "./request-timeline";
import { num, type Table } from "./table";
import { createTransactionFloor, describePlan } from "./transaction-floor";

/**
 * 1. Rate-bound sync: a full sync of N leads plus the reference source's
 * default other entities, at each rate_limit, on a fresh connection each.
 * Measured at the source: requests/s = (requests received - 1) / (last
 * arrival - first arrival).
 */
export async function measureRateBound(context: BenchContext): Promise<MeasurementResult> {
  const leads = bySize(context, { full: 20_000, quick: 2_000, smoke: 200 });
  const rates = context.rates ?? bySize(context, { full: [5, 20, 50, 100], quick: [5, 20], smoke: [100] });
  const client = benchClient(context.endpoint);
  const tableName = await freshTable(client, "rate");
  // Faults off (the default): no 429, no 5xx, so no retry and no wait but the limiter's.
  // In a process of its own, so that its arrival stamps are not held up by the service's event loop.
  const others = context.size === "smoke" ? TINY_OTHERS : OTHER_DEFAULT_SIZES;
  const source = await startSourceProcess({ ...others, leads });
  const sync = createInstrumentedSync({ endpoint: context.endpoint, tableName });
  // The store's floor for one page: the page's own transactions sent bare, in rounds between the syncs.
  // Enough pages per round that one slow transaction does not move a round's median (DynamoDB Local's runs vary by ±20%).
  const floorPages = bySize(context, { full: 20, quick: 15, smoke: 1 });
  const floor = await createTransactionFloor({ client, tableName, source, pagesPerRound: floorPages });
  const floorRound = async (when: string) => {
    context.progress(`rate-bound: floor round ${when} (${floorPages} pages of the page's transactions, bare)`);
    return floor.round();
  };
  const rows: (string | number)[][] = [];
  const binding: string[] = [];
  const floorRounds: number[][] = [];
  try {
    // DynamoDB Local's JIT warms over its first thousands of writes: an untimed sync first, so that neither the first
    // floor round nor the first rate's early entities are measured on a cold store (cold, its rounds ran up to 2x slower).
    // Not in the smoke size: its figures mean nothing, and the test that runs it is among the suite's slowest.
    if (context.size !== "smoke") {
      context.progress(`rate-bound: warm-up sync (untimed, rate_limit ${WARM_UP_RATE})`);
      await sync.syncWithStateMachine(await sync.addConnection({ baseUrl: source.url, token: source.token, rateLimit: WARM_UP_RATE }));
    }
    floorRounds.push(await floorRound("before the first rate"));
    for (const rate of rates) {
      context.progress(`rate-bound: ${leads} leads at rate_limit ${rate}`);
      const connection = await sync.addConnection({ baseUrl: source.url, token: source.token, rateLimit: rate });
      const before = (await source.requests()).length;
      const run = await sync.syncWithStateMachine(connection);
      const requests = (await source.requests()).slice(before);
      // The floor rounds on either side of this run: its ceiling, and their spread.
      floorRounds.push(await floorRound(`after rate_limit ${rate}`));
      const around = floorRounds.slice(-2);
      const floorMs = median(around.flat());
      const floorSpread = around.map((round) => median(round));
      const arrivals = requests.map((request) => request.receivedAt);
      const spanMs = Math.max(...arrivals) - Math.min(...arrivals);
      const achieved = ((requests.length - 1) * 1000) / spanMs;
      const records = recordsWritten(run.summary);
      const wallMs = Date.parse(run.summary.finished_at ?? run.summary.started_at) - Date.parse(run.summary.started_at);
      const pages = breakdown(run.pages);
      const cycled = cycles(run.pages, run.tasks);
      const { workMs, gapMs } = cycled;
      // The same pages' own transactions as the service sent them, in this run: what the page adds beyond its fetch and them.
      const added = addedMs(cycled);
      // The rate the sync would reach if the limiter never held it back: one page per (cycle - wait).
      const work = median(workMs);
      const capacity = 1000 / work;
      const ceiling = (rate * 1000) / RATE_WINDOW_MS;
      // What one request may cost when the limiter binds: a slot per RATE_WINDOW_MS / rate.
      const budgetMs = RATE_WINDOW_MS / rate;
      const overBudget = workMs.filter((ms) => ms > budgetMs).length / workMs.length;
      const meanWait = mean(run.pages.map(limiterWaitMs));
      // Sequential paging: a page starts only after the previous one is fetched and committed, so even a
      // service that cost nothing beyond the page's mandated writes could not go faster than one page per (fetch + floor).
      const fetchMs = run.pages.map((page) => page.fetchMs);
      const sequential = 1000 / (median(fetchMs) + floorMs);
      const bound = Math.min(rate, sequential);
      // Slots taken but left unused because they went stale before the request left (rateLimited takes another).
      const stale = run.pages.reduce((sum, page) => sum + staleSlots(page), 0);
      // Where the time goes between segments, and each request's slot, send and arrival on one clock.
      const gaps = segmentGaps(run.tasks);
      const lostMs = boundaryCostMs(gaps);
      const timeline = requestTimeline(run.pages, arrivals);
      const busiest = timeline === null ? null : windows(timeline);
      const sendLate = timeline?.map((request) => request.sentAt - request.slotAt) ?? [];
      const writing = timeline?.map((request) => request.writtenAt - request.sentAt) ?? [];
      const transit = timeline?.map((request) => request.arrivedAt - request.writtenAt) ?? [];
      rows.push([
        rate,
        requests.length,
        num(achieved, 2),
        num(achieved / rate, 4),
        achieved / rate >= 0.95 && achieved / rate <= 1 ? "yes" : "no",
        `${num(floorMs, 1)} (${floorSpread.map((ms) => num(ms, 1)).join(", ")})`,
        `${num(median(fetchMs), 1)} (${num(quantile(fetchMs, 0.25), 1)}-${num(quantile(fetchMs, 0.75), 1)})`,
        num(sequential, 1),
        num(achieved / bound, 3),
        achieved / bound >= 0.95 ? "yes" : "no",
        busiestWindow(arrivals, 1000),
        busiest === null ? "n/a" : `${busiest.slots} / ${busiest.sends} / ${busiest.arrivals}`,
        timeline === null ? "n/a" : `${num(median(sendLate), 1)} / ${num(Math.max(...sendLate), 0)}`,
        timeline === null ? "n/a" : `${num(median(writing), 1)} / ${num(Math.max(...writing), 0)}`,
        timeline === null ? "n/a" : `${num(median(transit), 1)} / ${num(Math.max(...transit), 0)}`,
        `${num(median(gaps.withinMs), 1)} / ${num(median(gaps.boundaryMs), 1)} x ${gaps.boundaryMs.length}`,
        `${num(lostMs / 1000, 2)} (${num((lostMs / spanMs) * 100, 1)}%)`,
        records.toLocaleString("en-US"),
        num(wallMs / 1000, 1),
        num((records * 1000) / wallMs, 0),
        num(meanWait, 1),
        stale,
        `${num(work, 1)} (${num(quantile(workMs, 0.25), 1)}-${num(quantile(workMs, 0.75), 1)})`,
        num(quantile(workMs, 0.9), 1),
        `${num(budgetMs, 1)} / ${num(overBudget * 100, 0)}%`,
        num(capacity, 1),
        `${num(median(added), 1)} (${num((median(added) / work) * 100, 1)}%)`,
        run.summary.status,
      ]);
      const costs = `a page task costs a median ${num(pages.busyMs, 0)} ms without its wait (DynamoDB ${num(pages.ddbMs, 0)} ms in ${num(pages.ddbCalls, 0)} calls, ${num(pages.ddbRoundTrips, 0)} round trips on the critical path, fetch ${num(pages.fetchMs, 0)} ms, in-process ${num(pages.inProcessMs, 0)} ms) plus ${num(median(gapMs), 1)} ms of engine between tasks`;
      if (busiest !== null && busiest.arrivals > rate) {
        const first = busiest.busiest[0]!;
        const cause =
          busiest.sends > rate
            ? `the service SENT ${busiest.sends} in one second: a limiter bug`
            : `slots ${busiest.slots} and sends ${busiest.sends} kept to the rate; the window's first request took ${num(first.arrivedAt - first.sentAt, 0)} ms from the HTTP client to the source's stamp (${num(first.writtenAt - first.sentAt, 0)} ms of it before it was written to the socket), more than the ${RATE_WINDOW_MARGIN_MS - SLOT_LATE_MS} ms the margin leaves after a send up to ${SLOT_LATE_MS} ms late`;
        binding.push(
          `rate_limit ${rate}: ${busiest.arrivals} arrivals in one second (${cause}). Slot / sent / written / arrived, ms after the window's first slot: ${busiest.busiest
            .map((request) => `${request.label} ${[request.slotAt, request.sentAt, request.writtenAt, request.arrivedAt].map((at) => num(at - first.slotAt, 0)).join(" / ")}`)
            .join("; ")}`,
        );
      }
      if (capacity < ceiling) {
        binding.push(
          `rate_limit ${rate}: the page task's own latency binds: ${costs}, so one page every ${num(work, 0)} ms => at most ${num(capacity, 1)} req/s, below the limiter's ${num(ceiling, 1)}. DynamoDB Local is most of it; the source idles between requests.`,
        );
      } else if (achieved >= ceiling * 0.99) {
        binding.push(
          `rate_limit ${rate}: the source's rate binds: ${costs}, so the loop could run ${num(capacity, 0)} pages/s; the limiter holds it to ${rate} starts per ${RATE_WINDOW_MS} ms (ceiling ${num(ceiling, 2)} req/s = ${num(ceiling / rate, 3)} x rate_limit) and waits ${num(meanWait, 0)} ms per page on average.`,
        );
      } else {
        binding.push(
          `rate_limit ${rate}: mostly the source's rate, with the page task's tail: ${costs}, fast enough on the median (${num(capacity, 0)} pages/s), but ${num(overBudget * 100, 0)}% of pages take longer than the ${num(budgetMs, 1)} ms a slot allows on average (p90 ${num(quantile(workMs, 0.9), 0)} ms), so some runs of ${rate} pages take more than ${RATE_WINDOW_MS} ms together. Such a window is never made up by a faster one, since every start must still come ${RATE_WINDOW_MS} ms after the start ${rate} places before it: ${num(achieved, 2)} req/s against a ceiling of ${num(ceiling, 2)}.`,
        );
      }
    }
  } finally {
    await sync.close();
    await source.close();
    await dropTable(client, tableName);
    client.destroy();
  }
  const table: Table = {
    title: `1. Rate-bound sync: ${leads.toLocaleString("en-US")} leads + the other entities (${sizesText(others)}), state machine, faults off`,
    columns: [
      "rate_limit (req/s)",
      "requests at source",
      "achieved (req/s)",
      "achieved / rate_limit",
      "target 0.95-1.0 met",
      "floor (ms): median (the medians of the rounds before and after)",
      "fetch (ms): median (IQR)",
      "mandated-write ceiling (req/s)",
      "achieved / min(rate_limit, ceiling)",
      ">= 0.95 of it",
      "busiest 1 s window (req)",
      "busiest 1 s window: slots / sends / arrivals",
      "sent - slot (ms) median / max",
      "written - sent (ms) median / max",
      "arrival - written (ms) median / max",
      "gap between page tasks (ms): in a segment / at a segment boundary x count",
      "boundaries cost (s, % of the span)",
      "records written",
      "run wall (s)",
      "records/s",
      "mean limiter wait (ms/page)",
      "stale slots re-taken",
      "median work (ms/page) (IQR)",
      "p90 work (ms/page)",
      "slot budget (ms) / pages over it",
      "page-task bound (req/s)",
      "added per page beyond its fetch and its own transactions (ms, % of work)",
      "run",
    ],
    rows,
    notes: [
      "achieved = (requests the source received - 1) / (last arrival - first arrival), arrivals stamped by the source (Date.now, ms, in the source's own process); target >= 0.95 x rate_limit, never above 1.0.",
      `stale slots re-taken = slots recorded but left unused because more than ${SLOT_LATE_MS} ms passed before the request could leave (the source client then takes a fresh slot); each one is a slot lost.`,
      `busiest 1 s window = most arrivals at the source in any [t, t + 1000 ms); must be <= rate_limit. The service holds it for what it controls, its slots and its sends (next column; a window above the rate there is a limiter bug); at the source it also needs each request to arrive within ${RATE_WINDOW_MARGIN_MS - SLOT_LATE_MS} ms of being sent (the margin's rest), which a loaded 2-core machine does not always give (the binding note then names the request).`,
      "slots / sends / arrivals: the busiest window of the limiter's recorded starts the requests went out on, of the moments they were handed to the HTTP client, and of the source's stamps; written = when undici wrote the request to the socket (all Date.now on one machine; the source runs in a process of its own, so its stamp is not held up by the service's event loop, only by its own process: the OS's scheduling on the busy cores, its GC). The limiter's rule is on slots; a request leaves at most 10 ms after its slot (else a fresh one is taken).",
      "gap between page tasks = the engine's time from one SyncPage's end to the next one's start, within a page-loop segment (an Express child execution) and across the boundary to the next segment (parent Route + RunPages + the child's start); boundaries cost = sum over boundaries of (boundary gap - median gap in a segment).",
      `floor = the page's own transactions sent bare with the SDK (${describePlan(floor.plan)} for a 100-lead page, planned by planPageTransactions: the fence on the run's lock, the records, the lease, the run's progress, the watermark), ${floorPages} pages per round, a round before the first rate and after each (${floorRounds.length} rounds, medians ${floorRounds.map((round) => num(median(round), 1)).join(", ")} ms); each rate uses the pages of the two rounds around its run.`,
      "mandated-write ceiling = 1000 / (median fetch + floor): the most pages per second sequential paging allows when the service adds nothing to what the design must write; the target is achieved >= 0.95 x min(rate_limit, ceiling).",
      "records/s = records written (sum of the run summary's rows, stages included) / (finished_at - started_at).",
      `work = time from one page task's start to the next task's start, minus the limiter's wait (what a page costs when nothing holds it back); page-task bound = 1000 / median work.`,
      "added = per page, its work minus its fetch minus its own TransactWriteItems as the service sent them in this run (median): the service's overhead measured on the store as it was at that moment, without the floor rounds' sampling (connection read and slot, validation, planning, engine).",
      `The limiter holds each slot ${RATE_WINDOW_MS} ms (1 s + its ${RATE_WINDOW_MS - 1000} ms margin), so a source-bound run tops out at 1000/${RATE_WINDOW_MS} = ${num(1000 / RATE_WINDOW_MS, 3)} x rate_limit; slot budget = ${RATE_WINDOW_MS} ms / rate_limit, the most a page may cost without falling behind.`,
    ],
  };
  return { tables: [table], binding };
}

/** Per page with a next task, in cycles' order: what remains of its work (cycle minus limiter wait) after its fetch and its own transactions. */
function addedMs({ workMs, paired }: ReturnType<typeof cycles>): number[] {
  const transactionsMs = (page: PageSample) =>
    page.calls.filter((call) => call.label.startsWith("TransactWriteItems")).reduce((sum, call) => sum + call.ms, 0);
  return paired.map((page, index) => workMs[index]! - page.fetchMs - transactionsMs(page));
}

/** The warm-up sync's rate_limit: high enough that the limiter never waits. */
const WARM_UP_RATE = 1000;

/** The reference source's default sizes of every entity but the leads. */
const OTHER_DEFAULT_SIZES: Readonly<Record<string, number>> = Object.fromEntries(Object.entries(DEFAULT_SIZES).filter(([name]) => name !== "leads"));

const sizesText = (sizes: Readonly<Record<string, number>>) =>
  Object.entries(sizes)
    .map(([name, size]) => `${size.toLocaleString("en-US")} ${name}`)
    .join(", ");

function recordsWritten(summary: RunSummary): number {
  return summary.entities.reduce((sum, row) => sum + row.records, 0);
}
