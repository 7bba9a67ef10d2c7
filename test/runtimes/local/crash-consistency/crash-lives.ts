import type { SyncEntity } from "../../../../lambdas/domain/core/entities";
import type { GateAnnouncement } from "../../../../lambdas/runtimes/local/crash-gates";
import type { SourceReply, SourceRequest } from "../../../support/source-server";

/*
 * The crash cases (docs/crash-consistency.md): where each run is killed, in
 * lives of the runtime; crash-cases.ts runs them.
 */

/** The Retry-After of the one throttled answer: the run sits in its Wait state this long unless killed. */
const RETRY_AFTER_SECONDS = 30;

export type CrashPart = 1 | 2 | 3 | 4;

/** Where a dead run was killed, as a page of the sync order: what it had committed follows from it. */
export interface CrashCase {
  readonly name: string;
  readonly killAt: (announcement: GateAnnouncement) => boolean;
  /** The entity the kill lands in and how many of its pages were committed by then (earlier entities: all). */
  readonly entity: SyncEntity;
  readonly committedPages: number;
  /** Called before the first start: a fault of this case's source, switched off at the kill. */
  readonly fault?: () => (request: SourceRequest) => SourceReply | undefined;
}

/**
 * One life of the runtime: the cases whose runs are cut short by the same kill. Cases that need another setting
 * or another way of dying get a life of their own; each life is one test file (part), so the lives run in parallel.
 */
export interface CrashLife {
  readonly part: CrashPart;
  readonly env?: Readonly<Record<string, string>>;
  /** Kill DynamoDB Local first, let the runtime run on into the dead store, then kill the rest. */
  readonly killJavaFirst?: boolean;
  readonly cases: readonly CrashCase[];
}

const at =
  (point: GateAnnouncement["point"], entity: SyncEntity, page: number, extra: (a: GateAnnouncement) => boolean = () => true) =>
  (a: GateAnnouncement) =>
    a.point === point && a.entity === entity && a.page === page && extra(a);

export const LIVES: readonly CrashLife[] = [
  {
    part: 1,
    // Each page fetched by its own task: before-fetch of page 2 then means page 1 has committed (part 4 fetches ahead).
    env: { FETCH_AHEAD: "false" },
    cases: [
      { name: "before the fetch", killAt: at("before-fetch", "leads", 2), entity: "leads", committedPages: 1 },
      { name: "after the fetch, before any write", killAt: at("after-fetch", "leads", 2), entity: "leads", committedPages: 1 },
      {
        name: "between the page's transactions",
        killAt: at("after-transaction", "leads", 1, (a) => a.transaction === 1 && a.watermark === false),
        entity: "leads",
        committedPages: 0,
      },
      {
        name: "after the last transaction, before the state machine records the task's result",
        killAt: at("page-task-returned", "leads", 1),
        entity: "leads",
        committedPages: 1,
      },
      {
        name: "during a Wait after a 429 with Retry-After",
        killAt: at("waiting", "leads", 2),
        entity: "leads",
        committedPages: 1,
        fault: () => {
          let throttled = false;
          return (request) => {
            if (throttled || request.path !== "/leads" || request.query.get("page") !== "2") return undefined;
            throttled = true;
            return { status: 429, headers: { "retry-after": String(RETRY_AFTER_SECONDS) }, json: { error: "slow down" } };
          };
        },
      },
    ],
  },
  {
    part: 2,
    // Three page tasks per execution: pipelines, users and contacts page 1, then the run continues at contacts page 2.
    env: { PAGE_TASKS_PER_EXECUTION: "3" },
    cases: [
      {
        name: "during ContinueAsNew",
        killAt: (a) => a.point === "continue-as-new" && a.entity === "contacts" && a.page === 2,
        entity: "contacts",
        committedPages: 1,
      },
    ],
  },
  {
    part: 4,
    // Fetch ahead, commit in order (docs/throughput.md#fetch-ahead): kills between the early fetch and the commit.
    env: { FETCH_AHEAD: "true" },
    cases: [
      {
        name: "fetched ahead: page 2's answer in the state, its task started, nothing of it written",
        killAt: at("page-task-started", "leads", 2, (a) => a.ahead === true),
        entity: "leads",
        committedPages: 1,
      },
      {
        name: "fetched ahead: page 1 committed and page 2's answer handed on, before the state machine records it",
        killAt: at("page-task-returned", "leads", 1, (a) => a.ahead === true),
        entity: "leads",
        committedPages: 1,
      },
      {
        name: "fetched ahead: between page 1's transactions while page 2's request is out",
        killAt: at("after-transaction", "leads", 1, (a) => a.transaction === 1 && a.watermark === false),
        entity: "leads",
        committedPages: 0,
      },
    ],
  },
  {
    part: 3,
    killJavaFirst: true,
    cases: [
      {
        name: "DynamoDB Local killed mid-run (between the page's transactions)",
        killAt: at("after-transaction", "leads", 1, (a) => a.transaction === 1),
        entity: "leads",
        committedPages: 0,
      },
    ],
  },
];

