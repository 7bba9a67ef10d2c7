import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DISPATCH_PAGE_SIZE } from "../../lambdas/domain/sync/dispatch-tick";
import { DISPATCH_BATCH_SIZE, DISPATCH_MAP_STATE } from "../../statemachine/dispatch-definition";
import { aslDefinition, type AslState } from "./definitions";
import { SYNC_ENTITIES } from "../../lambdas/domain/core/entities";
import { PAGE_TASKS_PER_EXECUTION } from "../../lambdas/domain/core/limits";
import { LocalStepFunctions, type LocalHistoryEvent } from "../../lambdas/runtimes/local/step-functions/local-step-functions";
import { pipelineRecord } from "../builders/source-records";
import { crmSource } from "../support/crm-source";
import { startSourceServer, type SourceServer } from "../support/source-server";
import { createSyncHarness, type SyncHarness } from "../support/sync-harness";

/** Step Functions' cap on the events of one Standard execution. */
const HISTORY_EVENT_LIMIT = 25_000;

/**
 * How many AWS history events a local engine event of the Standard parent
 * stands for. Its Tasks are Step Functions integrations (RunPages is
 * `startExecution.sync:2`): AWS writes TaskStateEntered, TaskScheduled,
 * TaskStarted and TaskSubmitted on entry; TaskSucceeded and TaskStateExited on
 * success; TaskFailed then Scheduled, Started and Submitted again per retry;
 * TaskFailed and TaskStateExited on a caught failure. Every other state writes
 * one event on entry and one on exit. Rounded up wherever the two logs differ,
 * so the count is an upper bound. The Express child keeps no history of its
 * own in Step Functions (it has no 25,000-event cap); its page tasks are
 * bounded per segment by PAGE_TASKS_PER_SEGMENT.
 */
function awsHistoryEvents(event: LocalHistoryEvent): number {
  if (!("state" in event)) return 1; // ExecutionStarted / Succeeded / Failed / Aborted
  const task = event.state.type === "Task";
  switch (event.type) {
    case "StateEntered":
      return task ? 4 : 1;
    case "StateExited":
      return task ? 2 : 1;
    case "StateRetried":
      return task ? 4 : 1;
    case "StateFailed":
      return task ? 2 : 1;
    case "StateCaught":
      return 0;
    default:
      return 1;
  }
}

const TOKEN = "history-token-0c2d";
let harness: SyncHarness;
let server: SourceServer;
const executions: string[] = [];
let pipelinesRequests = 0;

beforeAll(async () => {
  harness = await createSyncHarness({ timeScale: 0.001 });
  const start = harness.engine.start.bind(harness.engine);
  harness.engine.start = async (input) => {
    const ref = await start(input);
    executions.push(ref);
    return ref;
  };
  // The worst page: five 429s, each after five 5xx retries, then five more 5xx before the 200.
  server = await startSourceServer(
    crmSource(() => ({ pipelines: [pipelineRecord({ id: "p1" })], users: [], contacts: [], leads: [] }), {
      token: TOKEN,
      fault: (request) => {
        if (request.path !== "/pipelines") return undefined;
        const attempt = pipelinesRequests++;
        if (attempt % 6 < 5) return { status: 503, json: { error: "busy" } };
        if (attempt < 35) return { status: 429, headers: { "retry-after": "1" }, json: { error: "slow down" } };
        return undefined;
      },
    }),
  );
});
afterAll(async () => {
  await server.close();
  await harness.close();
});

test("history bound: a run with 5000 pages of leads stays under 25,000 events per Standard execution, even if every page takes every retry", async () => {
  const connection = await harness.addConnection({ baseUrl: server.baseUrl, token: TOKEN });
  const summary = await harness.sync(connection);
  expect(summary.status).toBe("succeeded");
  expect(pipelinesRequests).toBe(36);
  expect(executions).toHaveLength(1);

  const events = harness.engine.events(executions[0]!);
  // Cut the parent's log at every entry into RunPages: each cut is one segment of the Express child and what
  // follows it (the 429 path, which waits here in the parent).
  const segments: number[] = [];
  let head = 0;
  for (const event of events) {
    const entersRunPages = event.type === "StateEntered" && "state" in event && event.state.name === "RunPages";
    if (entersRunPages) segments.push(0);
    if (segments.length === 0) head += awsHistoryEvents(event);
    else segments[segments.length - 1]! += awsHistoryEvents(event);
  }
  // The five 429s of /pipelines each ended a segment and went through the parent's wait.
  expect(segments.length).toBeGreaterThanOrEqual(6);
  // A segment the parent retries (a child that failed or timed out) adds TaskFailed + 4 per retry; past the retries its
  // catch fails the entity (TaskFailed and TaskStateExited, SegmentGaveUp and SegmentFailsEntity: 2 each), once per entity.
  const runPagesRetries = aslDefinition("sync.asl.json").States["RunPages"]!.Retry![0]!.MaxAttempts!;
  const worstSegment = Math.max(...segments) + runPagesRetries * (2 + 4);
  const caughtPerEntity = 2 + 2 + 2;
  expect(Math.max(...segments)).toBeGreaterThanOrEqual(4 + 2 + 1 + 1 + 1 + 1 + 2);

  // Per execution: at most PAGE_TASKS_PER_EXECUTION counted page tasks, plus up to 5 throttled retries past the
  // budget, plus one failing page task per entity; a segment holds at least one page task, so no more segments.
  const segmentsPerExecution = PAGE_TASKS_PER_EXECUTION + 5 + SYNC_ENTITIES.length;
  const bound = head + segmentsPerExecution * worstSegment + SYNC_ENTITIES.length * caughtPerEntity;
  console.info(
    `history bound: ${segmentsPerExecution} segments × ${worstSegment} events (worst segment, retried ${runPagesRetries} times) + ${SYNC_ENTITIES.length} caught × ${caughtPerEntity} + ${head} = ${bound} of ${HISTORY_EVENT_LIMIT}`,
  );
  expect(bound).toBeLessThan(HISTORY_EVENT_LIMIT);
  // 5000 pages of leads therefore need ceil(5000 / budget) executions, each under the cap.
  expect(Math.ceil(5000 / PAGE_TASKS_PER_EXECUTION)).toBeGreaterThan(1);
});

/**
 * The other two definitions, from their text. Weights as awsHistoryEvents above, each an upper bound: a Task writes
 * 4 events on entry and 2 on exit, 5 per retry (TaskFailed and 4 again) and 2 for a caught failure; a Map state 6 and 2
 * per iteration; any other state 2.
 */
const taskEvents = (state: AslState): number =>
  4 + 2 + 5 * Math.max(0, ...(state.Retry ?? []).map((retrier) => retrier.MaxAttempts ?? 3)) + ((state.Catch ?? []).length > 0 ? 2 : 0);
const stateEvents = (state: AslState): number => (state.Type === "Task" ? taskEvents(state) : state.Type === "Map" ? 6 : 2);
const sumEvents = (states: Record<string, AslState>, names: readonly string[]): number => names.reduce((sum, name) => sum + stateEvents(states[name]!), 0);

describe("history bound: every definition", () => {
  test("history bound: sync-pages.asl.json keeps no history (an Express workflow, test/cdk/state-machine.test.ts) and ends within 300 s", () => {
    expect(aslDefinition("sync-pages.asl.json")["TimeoutSeconds"]).toBe(300);
  });

  test("history bound: a dispatch Map child (a batch of runs, each polling its continuations until the tick's own timeout) stays under 25,000 events", () => {
    const dispatch = aslDefinition("dispatch.asl.json");
    const child = dispatch.States[DISPATCH_MAP_STATE]!.ItemProcessor!.States;
    const firsts = child["FirstSegments"]!.ItemProcessor!.States;
    const handOver = child["HandOvers"]!.ItemProcessor!.States;
    // The loop that waits for a continued run: it must be bounded by a poll budget, not by the run.
    const budget = handOver["PollBudget"] as { Choices?: Array<{ Variable: string; NumericGreaterThanEquals: number; Next: string }> } | undefined;
    expect(budget, "the continuation poll loop has no budget").toBeDefined();
    const [spent, slow] = budget!.Choices!;
    expect(spent).toMatchObject({ Variable: "$.polls.count", Next: "ItemDone" });
    const polls = spent!.NumericGreaterThanEquals;
    // The budget never ends a wait before the tick itself would: the polls' waits cover its whole TimeoutSeconds.
    const waited = slow!.NumericGreaterThanEquals * (handOver["WaitForContinuation"]!["Seconds"] as number) +
      (polls - slow!.NumericGreaterThanEquals) * (handOver["WaitLongForContinuation"]!["Seconds"] as number);
    expect(waited).toBeGreaterThanOrEqual(dispatch["TimeoutSeconds"] as number);

    // Per poll, every state of the loop once, a new generation's two included, the describe with all its retries.
    const perPoll = sumEvents(handOver, ["PollBudget", "WaitLongForContinuation", "CountPoll", "DescribeContinuation", "ContinuationEnded", "ReadContinuation", "Continued"]);
    const loop = new Set(["PollBudget", "WaitForContinuation", "WaitLongForContinuation", "CountPoll", "DescribeContinuation", "ContinuationEnded", "ReadContinuation", "Continued"]);
    // Per run, once: its first segment and release, and its hand-over's states outside the loop (each with all its retries), two Map iterations.
    const perRun = sumEvents(firsts, Object.keys(firsts)) + sumEvents(handOver, Object.keys(handOver).filter((name) => !loop.has(name))) + 2 * 2;
    const perChild = 2 + sumEvents(child, Object.keys(child));
    const bound = perChild + DISPATCH_BATCH_SIZE * (perRun + polls * perPoll);
    console.info(`history bound (dispatch child): ${DISPATCH_BATCH_SIZE} runs × (${perRun} + ${polls} polls × ${perPoll}) + ${perChild} = ${bound} of ${HISTORY_EVENT_LIMIT}`);
    expect(bound).toBeLessThan(HISTORY_EVENT_LIMIT);
  });

  test("history bound: the dispatch parent lists at least 100,000 connections in one tick within 25,000 events, even if every ListConnections takes every retry", () => {
    const states = aslDefinition("dispatch.asl.json").States;
    const perPage = sumEvents(states, ["NextPage", "ListConnections", "RunConnections", "MorePages"]);
    const fixed = 2 + sumEvents(states, ["FirstPage", "Dispatched"]);
    const pages = Math.floor((HISTORY_EVENT_LIMIT - fixed) / perPage);
    console.info(`history bound (dispatch parent): ${pages} pages of ${DISPATCH_PAGE_SIZE} at ${perPage} events each, ${pages * DISPATCH_PAGE_SIZE} connections`);
    expect(pages * DISPATCH_PAGE_SIZE).toBeGreaterThanOrEqual(100_000);
  });
});

/**
 * The poll loop of a dispatch child, run as it runs: the HandOvers iteration of statemachine/dispatch.asl.json on
 * aws-local-stepfunctions, its waits scaled to nothing, with a continuation that never ends. Step Functions quotas
 * ("Quotas related to state machine executions": 25,000 events in one Standard execution's history) make a child
 * that polls without end fail on its history, and "Redriving Map Runs" says a child failed on that limit cannot be
 * redriven: so every poll of a running continuation must pass the budget.
 */
describe("history bound: the dispatch child's poll loop, run on the local engine", () => {
  const OFFERED = 2_000;

  async function pollUntilOffersRunOut(): Promise<{ polls: number; waits: number[]; events: number }> {
    const handOver = aslDefinition("dispatch.asl.json").States[DISPATCH_MAP_STATE]!.ItemProcessor!.States["HandOvers"]!.ItemProcessor!;
    let polls = 0;
    const engine = new LocalStepFunctions({
      definition: { StartAt: handOver.StartAt, States: handOver.States },
      timeScale: 0,
      handlers: {
        // The run went on in a continuation (ContinueAsNew): its first execution ended with the next one's ARN.
        RunSync: async () => ({ Output: { ExecutionArn: "arn:aws:states:us-east-1:000000000000:execution:Sync:r1-c1" } }),
        // A continuation that is still RUNNING every time it is described, for as long as the test offers it.
        DescribeContinuation: async () => (++polls <= OFFERED ? { Status: "RUNNING" } : { Status: "SUCCEEDED", Output: "{}" }),
        ReleaseRun: async () => {
          throw new Error("a run still running is never released");
        },
      },
    });
    try {
      const ref = await engine.start({
        run: { business_account_id: "a1", connection_id: "c1", run_id: "r1" },
        cursor: { entity: "leads", page: 26 },
        step: { outcome: "next_segment" },
      });
      expect((await engine.result(ref)).status).toBe("SUCCEEDED");
      const waits = engine.timers(ref).filter((timer) => timer.kind === "wait").map((timer) => timer.requestedMs / 1000);
      const events = engine.events(ref).reduce((sum, event) => sum + awsHistoryEvents(event), 0);
      return { polls: Math.min(polls, OFFERED), waits, events };
    } finally {
      await engine.stop();
    }
  }

  test("poll budget (Step Functions quotas: 25,000 history events per Standard execution): a continuation that never ends is polled at most the budget's times, hourly after the first 15, and a batch of such runs stays under the cap", async () => {
    const { polls, waits, events } = await pollUntilOffersRunOut();
    const handOver = aslDefinition("dispatch.asl.json").States[DISPATCH_MAP_STATE]!.ItemProcessor!.States["HandOvers"]!.ItemProcessor!.States;
    const [spent, slow] = (handOver["PollBudget"] as unknown as { Choices: Array<{ NumericGreaterThanEquals: number }> }).Choices;
    const budget = spent!.NumericGreaterThanEquals;
    console.info(`poll budget: ${polls} polls of ${OFFERED} offered (budget ${budget}), ${events} history events for the run's hand-over`);
    expect(polls).toBe(budget);
    expect(waits.filter((seconds) => seconds === 60)).toHaveLength(slow!.NumericGreaterThanEquals);
    expect(waits.filter((seconds) => seconds === 3600)).toHaveLength(budget - slow!.NumericGreaterThanEquals);
    // The measured hand-over of one run, DISPATCH_BATCH_SIZE times, with room for the child's other states.
    expect(DISPATCH_BATCH_SIZE * events).toBeLessThan(HISTORY_EVENT_LIMIT - 1_000);
  });
});
