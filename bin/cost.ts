/**
 * `npm run cost`: the on-paper cost of a sync, walked from the two state
 * machine definitions (bin/cost/cost-model.ts) at the prices of
 * bin/cost/prices.ts. Exits 1 when a target of issue 14 is missed.
 */
import { PAGE_TASKS_PER_EXECUTION, PAGE_TASKS_PER_SEGMENT } from "../lambdas/domain/core/limits";
import {
  idleConnectionMonth,
  millionRecords,
  standardTransitionsPerPage,
  TARGET_USD_PER_IDLE_CONNECTION_MONTH,
  TARGET_USD_PER_MILLION_RECORDS,
  TICK_CONNECTIONS,
  weeklyAuditConnectionMonth,
  type CostReport,
} from "./cost/cost-model";
import { tickReads, type TickReads } from "./cost/tick-reads";

const usd = (value: number) => `$${value.toFixed(value < 0.01 ? 4 : 3)}`;

function print(title: string, cost: CostReport): void {
  console.log(`\n${title}`);
  const { run } = cost;
  console.log(
    `  walked: ${run.pages} page tasks, ${run.standardExecutions} Standard execution(s) with ${run.standardTransitions} transitions, ` +
      `${run.expressExecutions} Express segment(s) with ${run.expressStates} states (not billed per state), ended in ${run.endedIn}`,
  );
  const width = Math.max(...cost.lines.map((line) => line.item.length));
  for (const line of cost.lines) console.log(`  ${line.item.padEnd(width)}  ${usd(line.usd).padStart(8)}  ${line.arithmetic}`);
  console.log(`  ${"Step Functions alone".padEnd(width)}  ${usd(cost.stepFunctions).padStart(8)}`);
  console.log(`  ${"total".padEnd(width)}  ${usd(cost.total).padStart(8)}`);
}

const perPage = standardTransitionsPerPage();
const million = millionRecords();
const ticks = { small: await tickReads(TICK_CONNECTIONS), large: await tickReads(100_000) };
const idle = idleConnectionMonth(ticks.small);
const { dispatch } = idle;

console.log(`Standard transitions per page (steady state, ${PAGE_TASKS_PER_SEGMENT} page tasks per Express segment, ${PAGE_TASKS_PER_EXECUTION} per Standard execution): ${perPage.toFixed(3)}`);
console.log(
  `Standard transitions per idle run, dispatched: ${idle.standardTransitionsPerRun.toFixed(3)} ` +
    `(sync execution ${idle.run.standardTransitions}; Map children of ${dispatch.batchSize} runs: ${dispatch.childStarts} starts + ${dispatch.childTransitions} states; ` +
    `tick: ${dispatch.tickTransitions} states; over ${dispatch.connections} connections, from statemachine/dispatch.asl.json)`,
);
const tickLine = (tick: TickReads) =>
  `${tick.connections.toLocaleString("en-US")} connections: ${tick.rruPerConnection.toFixed(3)} RRU per connection per tick ` +
  `(${tick.listedItems.toLocaleString("en-US")} connections listed in ${tick.queries} Queries, ${tick.lockReads.toLocaleString("en-US")} run locks in ${tick.batchGets} BatchGetItems: ${tick.calls.toLocaleString("en-US")} calls over ${tick.pages} pages)`;
console.log(`Schedule tick reads (bin/cost/tick-reads.ts: the real ListConnections over an in-memory fleet; 100,000 by this model, not a run):`);
console.log(`  ${tickLine(ticks.small)}`);
console.log(`  ${tickLine(ticks.large)}`);
print("A million records (10,000 pages of 100 leads; the other entities empty; one run, dispatch not counted)", million);
print(`An idle connection for a month (hourly: 730 runs, every entity one empty page, dispatched on a tick of ${TICK_CONNECTIONS} connections)`, idle);
print("Weekly audits for a month (audit_schedule 7d: 4.33 audits of the reference default data set, 24,000 incremental records, nothing to heal)", weeklyAuditConnectionMonth());

const checks = [
  { what: "per million records, total", value: million.total, target: TARGET_USD_PER_MILLION_RECORDS },
  { what: "per idle connection-month, Step Functions alone", value: idle.stepFunctions, target: TARGET_USD_PER_IDLE_CONNECTION_MONTH },
  { what: "per idle connection-month, everything", value: idle.total, target: TARGET_USD_PER_IDLE_CONNECTION_MONTH },
];
console.log("\nTargets (issue 14, item 6):");
for (const check of checks) console.log(`  ${check.what}: ${usd(check.value)} (target ≤ ${usd(check.target)}) ${check.value <= check.target ? "met" : "MISSED"}`);
if (checks.some((check) => check.value > check.target)) process.exitCode = 1;
