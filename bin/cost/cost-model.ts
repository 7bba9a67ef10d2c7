import { SYNC_ENTITIES, type SyncEntity } from "../../lambdas/domain/core/entities";
import { AUDIT_ENTITIES, type AuditEntity } from "../../lambdas/domain/core/run-mode";
import { DEFAULT_SIZES } from "../reference-source/dataset";
import { OTHER_TASK_SECONDS, PAGE_TASK_SECONDS, runWalker, walkRun, type RunWalk } from "./run-walk";
import { walkDispatchTick, type DispatchWalk } from "./dispatch-walk";
import * as price from "./prices";
import type { TickReads } from "./tick-reads";

/**
 * What a sync run costs, from the definitions themselves: the Standard parent
 * and the Express page loop are walked state by state (bin/cost/asl-walk.ts)
 * with page tasks that answer as lambdas/domain/sync/sync-page.ts does (the same
 * nextPageStep, so PAGE_TASKS_PER_SEGMENT and PAGE_TASKS_PER_EXECUTION
 * decide the segments and continuations), on the happy path: no retries, no
 * 429s. The workload figures below are assumptions, named once.
 */

/** Memory of every sync Task function (lib/service-function.ts FUNCTION_SIZES.syncPage and .syncStep: 512 MB). */
export const TASK_MEMORY_GB = 0.5;
/** Records of a page whose heads a lead page reads (every record of a full page, quoted as leads). */
const RECORDS_PER_PAGE_FOR_READS = 100;
/** Records per full page (`limit=100`) and the volume quoted. */
export const RECORDS_PER_PAGE = 100;
export const RECORDS_QUOTED = 1_000_000;
/** A full page's change items (issue 36): the first transaction's 98 ids (under 2 KB, 4 WRU) and the last one's 2 (2). */
export const CHANGE_ITEMS_WRU = 4 + 2;
/** The records' own transactional writes, 2 WRU each (at most 1 KB). */
export const RECORD_WRU = 2;
/**
 * Each new record's entry in the newest-first index: DynamoDB bills a write as the table's units plus each index's
 * ("Global secondary indexes in DynamoDB": an item that gains the index's key is one index write of its entry's
 * size). The index projects its keys only, so the entry is 1 WRU whatever the record's size, and a rewrite that keeps
 * the record's `newest` value writes nothing to it. Was not counted before: $1.353 per million records then.
 */
export const RECORD_INDEX_WRU = 1;
/**
 * WRU of a full page of 100 new records of at most 1 KB: 100 x (2 (transactional
 * put) + 1 (its index entry)) + the lock check 2 + the lease update 2 + the run
 * summary's progress 2 + the watermark 2 (all transactional) + the rate
 * limiter's slot 1 + the page's change items (issue 36: the feed), one in each
 * transaction that writes records: 98 ids of a few characters in under 2 KB (4),
 * and the last 2 (2). A lead's entry into its first stage rides on its head
 * (about 80 bytes: a lead head of the reference source stays under 1 KB,
 * measured); a stage move adds a transition item (2 WRU), counted per move, not
 * per record: none in a first full sync.
 */
export const FULL_PAGE_WRU = 100 * (RECORD_WRU + RECORD_INDEX_WRU) + 2 + 2 + 2 + 2 + 1 + CHANGE_ITEMS_WRU;
/**
 * The DynamoDB write figures below are measured, not estimated: test/domain/sync/idle-run-writes.test.ts runs an idle
 * run on the real sync (DynamoDB Local, the reference source) and counts the write units of every item written
 * as DynamoDB bills them (ceil(KB), doubled in a transaction, a ConditionCheck 2); it fails when they drift.
 */
/** The rate limiter's slot: one Put of the connection's small log item per request (more only if a slot went stale before its request left). */
export const RATE_SLOT_WRU = 1;
/**
 * An idle page's commit: one transaction, the lease update, the run summary's progress and the entity's
 * data_as_of on its watermark item (its freshness: every committed page moves it), 2 WRU each. The records of
 * an unchanged whole listing are not rewritten and an unmoved watermark is not written
 * (lambdas/adapters/dynamodb/records/page-transactions.ts). Before freshness: 4; before the listing hash: 40 (/pipelines), 64
 * (/users) and 6 (each incremental entity's re-read margin) WRU.
 */
export const IDLE_PAGE_COMMIT_WRU = 2 + 2 + 2;
/** An empty page (nothing new): its commit and the limiter's slot. */
export const EMPTY_PAGE_WRU = IDLE_PAGE_COMMIT_WRU + RATE_SLOT_WRU;
/**
 * The run's end as a notification (lambdas/domain/notifications): a transaction of the event id's marker (2) and the
 * listed notification, "Sync Run Finished" with its 8 rows, just over 1 KB (4).
 */
export const RUN_END_NOTICE_WRU = 2 + 4;
/**
 * WRU of a whole idle run besides its page commits and slots: the lock and run summary created (transaction, 2
 * items), the execution recorded on the lock by the start and by BeginRun (with the lease, one update), the
 * summary's entity rows (8 updates: each entity's end written with the next one's start), and the finish
 * (transaction: the summary, the lock deleted). Before: 27 (setExecution and heartbeat apart, 16 row updates).
 */
export const IDLE_RUN_OTHER_WRU = 2 * 2 + 1 + 1 + 8 * 1 + 2 * 2 + RUN_END_NOTICE_WRU;
/**
 * The DynamoDB read figures are measured the same way (test/domain/sync/idle-run-writes.test.ts, counted by
 * test/support/read-units.ts as DynamoDB bills reads: ceil(size / 4 KB) per item or per Query, halved when
 * eventually consistent, a miss or an empty Query still 1 unit, or 0.5); the test fails when they drift.
 */
/** Reads of every page task: the connection, eventually consistent (0.5 RRU; lambdas/domain/sync/page-connection.ts). */
export const PAGE_RRU = 0.5;
/** Reads of a full page of 100 records in the middle of an entity: its connection; the commit reads nothing (it writes fenced by the lock). */
/**
 * A full page of leads reads each lead's stored head before it writes (issue 36: stage history,
 * lambdas/adapters/dynamodb/records/stored-stages.ts): one strong BatchGetItem, 1 RRU per head under 4 KB.
 */
export const LEAD_HEAD_RRU = 1;
/** Quoted as if every record were a lead (the dearest case: other entities read nothing). */
export const FULL_PAGE_RRU = PAGE_RRU + RECORDS_PER_PAGE_FOR_READS * LEAD_HEAD_RRU;
/**
 * The stage kinds, read once per run: one strong Query of the one record shard of /stages (a small collection:
 * RECORD_SHARDS_BY_COLLECTION, lambdas/adapters/dynamodb/records/keys.ts), 1 RRU per 4 KB of stage heads (the reference source's 3
 * pipelines: 2, since each head also carries its lineage, about 200 bytes). Before lineage: 1; before write
 * sharding: 64 (a Query of each of 64 shards, 1 RRU each however empty).
 */
export const STAGE_KINDS_RRU = 2;
/**
 * The user ids a run's findings check `responsible_user_id` against (reference.user): one strong Query of the
 * users record shard per run (memoized like the stage kinds), 1 RRU per 4 KB of user heads read: the reference
 * source's 30 users, about 410 bytes each with their lineage, 4 (2 before lineage).
 */
export const USER_IDS_RRU = 4;
/**
 * RRU of a run besides its pages' connection reads (strongly consistent, items under 4 KB, 1 RRU each):
 * BeginRun's connection read 1, each entity's stored listing hash on its page 1 (7), each incremental
 * entity's watermark at its start (5), the stage kinds (STAGE_KINDS_RRU), the user ids (USER_IDS_RRU), the
 * run store's two reads of the run summary as the run ends, and the run end's freshness check: the connection
 * (strong, 1) and its watermark items (one strong Query, 1). The same in a busy run.
 */
export const IDLE_RUN_OTHER_RRU = 1 + 7 + 5 + STAGE_KINDS_RRU + USER_IDS_RRU + 2 + 2;
/** All an idle run reads: 7 pages and the rest. */
export const IDLE_RUN_RRU = 7 * PAGE_RRU + IDLE_RUN_OTHER_RRU;
/**
 * KMS Decrypts per run: the page task caches a decrypted token per warm
 * process (lambdas/adapters/aws/cached-token-cipher.ts) and a run's pages follow one
 * another within seconds, so at most one per run (none while the process that
 * ran the last hour's run is still warm and the token unchanged); the idle run
 * counts one, measured in test/domain/sync/idle-run-writes.test.ts. Before: 7 (one per page).
 */
export const DECRYPTS_PER_BUSY_RUN = 1;
export const DECRYPTS_PER_IDLE_RUN = 1;
/** Hourly schedule: runs in an average month (8,760 hours / 12). */
export const IDLE_RUNS_PER_MONTH = 730;

/** What issue 36 lets stage history and the change feed add per million records (its $1.60 against issue 14's $1.40). */
export const ISSUE_36_FEATURES_USD = 0.2;
/**
 * The targets of issue 14 (item 6). Per million records it was $1.40, $0.15 over the floor of the records' own
 * writes ($1.25); that floor left out each record's index entry, so the target keeps the $0.15 over the floor that
 * counts it: 1,000,000 x (2 + 1) WRU = $1.875, target $2.025 (issue 39, item 5). Issue 36 allows stage history and
 * the change feed $0.20 more ($1.60 against the $1.40 of the count it was set in): $0.35 over the floor, $2.225.
 */
export const TARGET_USD_PER_MILLION_RECORDS = RECORDS_QUOTED * (RECORD_WRU + RECORD_INDEX_WRU) * price.DYNAMODB_WRU_USD + 0.15 + ISSUE_36_FEATURES_USD;
export const TARGET_USD_PER_IDLE_CONNECTION_MONTH = 0.1;


export interface CostLine {
  readonly item: string;
  readonly arithmetic: string;
  readonly usd: number;
}

function stepFunctionsLines(run: RunWalk, runs: number): CostLine[] {
  return [
    {
      item: "Step Functions Standard transitions",
      arithmetic: `${run.standardTransitions} per run × ${runs} × $${price.STANDARD_TRANSITION_USD * 1000}/1,000`,
      usd: run.standardTransitions * runs * price.STANDARD_TRANSITION_USD,
    },
    {
      item: "Step Functions Express requests",
      arithmetic: `${run.expressExecutions} segments per run × ${runs} × $${price.EXPRESS_REQUEST_USD * 1e6}/million`,
      usd: run.expressExecutions * runs * price.EXPRESS_REQUEST_USD,
    },
    {
      item: "Step Functions Express duration",
      arithmetic: `${run.expressBilledSeconds.toFixed(1)} s per run × ${runs} × ${price.EXPRESS_BILLED_GB} GB × $${price.EXPRESS_GB_SECOND_USD.toPrecision(3)}/GB-s`,
      usd: run.expressBilledSeconds * runs * price.EXPRESS_BILLED_GB * price.EXPRESS_GB_SECOND_USD,
    },
  ];
}

function lambdaLines(run: RunWalk, runs: number): CostLine[] {
  const invocations = Object.values(run.invocations).reduce((sum, n) => sum + n, 0);
  const gbSeconds = (run.invocations.SyncPage * PAGE_TASK_SECONDS + (invocations - run.invocations.SyncPage) * OTHER_TASK_SECONDS) * TASK_MEMORY_GB;
  return [
    { item: "Lambda requests", arithmetic: `${invocations} per run × ${runs} × $0.20/million`, usd: invocations * runs * price.LAMBDA_REQUEST_USD },
    {
      item: "Lambda duration",
      arithmetic: `${gbSeconds.toFixed(2)} GB-s per run × ${runs} × $${price.LAMBDA_ARM_GB_SECOND_USD}/GB-s`,
      usd: gbSeconds * runs * price.LAMBDA_ARM_GB_SECOND_USD,
    },
  ];
}

export interface CostReport {
  readonly run: RunWalk;
  readonly lines: readonly CostLine[];
  readonly total: number;
  /** The Step Functions lines alone (the lever issue 14 names). */
  readonly stepFunctions: number;
}

const report = (run: RunWalk, lines: CostLine[]): CostReport => ({
  run,
  lines,
  total: lines.reduce((sum, line) => sum + line.usd, 0),
  stepFunctions: lines.filter((line) => line.item.startsWith("Step Functions")).reduce((sum, line) => sum + line.usd, 0),
});

/** One connection, RECORDS_QUOTED new leads in full pages; the other six entities one empty page each. */
export function millionRecords(): CostReport {
  const fullPages = RECORDS_QUOTED / RECORDS_PER_PAGE;
  const pagesPerEntity = Object.fromEntries(SYNC_ENTITIES.map((entity) => [entity, entity === "leads" ? fullPages : 1])) as Record<SyncEntity, number>;
  const run = walkRun(pagesPerEntity);
  const emptyPages = run.pages - fullPages;
  const wru = fullPages * FULL_PAGE_WRU + emptyPages * EMPTY_PAGE_WRU;
  const rru = fullPages * FULL_PAGE_RRU + emptyPages * PAGE_RRU + IDLE_RUN_OTHER_RRU;
  return report(run, [
    ...stepFunctionsLines(run, 1),
    ...lambdaLines(run, 1),
    {
      item: "DynamoDB writes",
      arithmetic: `${fullPages} full pages × ${FULL_PAGE_WRU} WRU + ${emptyPages} empty × ${EMPTY_PAGE_WRU} = ${wru} WRU × $0.625/million (floor: the records and their index entries alone, ${RECORDS_QUOTED} × (${RECORD_WRU} + ${RECORD_INDEX_WRU}) WRU = $${(RECORDS_QUOTED * (RECORD_WRU + RECORD_INDEX_WRU) * price.DYNAMODB_WRU_USD).toFixed(3)})`,
      usd: wru * price.DYNAMODB_WRU_USD,
    },
    {
      item: "DynamoDB reads",
      arithmetic: `${fullPages} full pages × ${FULL_PAGE_RRU} RRU + ${emptyPages} empty × ${PAGE_RRU} + ${IDLE_RUN_OTHER_RRU} for the run = ${rru} RRU × $0.125/million`,
      usd: rru * price.DYNAMODB_RRU_USD,
    },
    { item: "KMS", arithmetic: `${DECRYPTS_PER_BUSY_RUN} Decrypt per run (cached per warm process) × $0.03/10,000`, usd: DECRYPTS_PER_BUSY_RUN * price.KMS_REQUEST_USD },
  ]);
}

/**
 * Connections on the schedule tick the tick's own states are shared out over
 * (issue 14's fleet: 1,000 hourly connections). Smaller ticks pay more each:
 * the tick costs 5 transitions plus 4 per extra page of DISPATCH_PAGE_SIZE.
 */
export const TICK_CONNECTIONS = 1_000;
/** The cap on concurrent runs quoted: context maxConcurrentRuns' default (lib/deploy-config.ts CONTEXT_DEFAULTS). It sets the batch size. */
export const MAX_CONCURRENT_RUNS_QUOTED = 200;
/** Billed duration of a dispatcher Task (ListConnections, ClaimRuns, SettleFirstSegments): a DynamoDB query, a batch's claims, a filter. */
export const DISPATCH_TASK_SECONDS = 0.1;
/** Memory of the dispatcher function (lib/service-function.ts FUNCTION_SIZES.dispatcher: 512 MB). */
export const DISPATCHER_MEMORY_GB = 0.5;

export interface IdleCostReport extends CostReport {
  /** The tick that dispatched the run, walked from statemachine/dispatch.asl.json. */
  readonly dispatch: DispatchWalk;
  /** Standard transitions per idle run, dispatch included: the sync run's, the Map child's, the tick's share. */
  readonly standardTransitionsPerRun: number;
  /** WRU per idle run the DynamoDB line counts. */
  readonly wruPerRun: number;
}

/**
 * One connection with nothing new, on an hourly schedule: every entity one
 * empty page, IDLE_RUNS_PER_MONTH runs, each dispatched by the schedule tick
 * (a tick of TICK_CONNECTIONS connections): the tick's Map child and its share
 * of the tick are part of what an idle run costs, its reads (`tick`, from
 * bin/cost/tick-reads.ts at TICK_CONNECTIONS) too.
 */
export function idleConnectionMonth(tick: TickReads): IdleCostReport {
  const pagesPerEntity = Object.fromEntries(SYNC_ENTITIES.map((entity) => [entity, 1])) as Record<SyncEntity, number>;
  const dispatch = walkDispatchTick(TICK_CONNECTIONS, MAX_CONCURRENT_RUNS_QUOTED, () => runWalker(pagesPerEntity));
  const run = dispatch.runs[0]!;
  const runs = IDLE_RUNS_PER_MONTH;
  const n = dispatch.connections;
  const syncRun = dispatch.runs.reduce((sum, walked) => sum + walked.standardTransitions, 0) / n;
  const childStarts = dispatch.childStarts / n;
  const childStates = dispatch.childTransitions / n;
  const tickShare = dispatch.tickTransitions / n;
  const perRun = syncRun + childStarts + childStates + tickShare;
  const wru = run.pages * EMPTY_PAGE_WRU + IDLE_RUN_OTHER_WRU;
  const tickRru = tick.rruPerConnection;
  const rru = run.pages * PAGE_RRU + IDLE_RUN_OTHER_RRU + tickRru;
  const decrypts = DECRYPTS_PER_IDLE_RUN;
  const [, ...express] = stepFunctionsLines(run, runs);
  const dispatcherInvocations = dispatch.dispatcherInvocations / n;
  const dispatcherGbSeconds = dispatcherInvocations * DISPATCH_TASK_SECONDS * DISPATCHER_MEMORY_GB;
  const lines: CostLine[] = [
    {
      item: "Step Functions Standard transitions",
      arithmetic:
        `(${syncRun} sync execution + ${dispatch.childStarts}/${n} Map child starts + ${dispatch.childTransitions}/${n} child states + ${dispatch.tickTransitions}/${n} tick) ` +
        `= ${perRun.toFixed(3)} per run × ${runs} × $${price.STANDARD_TRANSITION_USD * 1000}/1,000`,
      usd: perRun * runs * price.STANDARD_TRANSITION_USD,
    },
    ...express,
    ...lambdaLines(run, runs),
    {
      item: "Lambda, dispatcher",
      arithmetic: `${dispatcherInvocations.toFixed(3)} invocations per run (ClaimRuns', SettleFirstSegments' and ListConnections' shares) × ${runs} × ($0.20/million + ${DISPATCH_TASK_SECONDS} s × ${DISPATCHER_MEMORY_GB} GB × $${price.LAMBDA_ARM_GB_SECOND_USD}/GB-s)`,
      usd: dispatcherInvocations * runs * price.LAMBDA_REQUEST_USD + dispatcherGbSeconds * runs * price.LAMBDA_ARM_GB_SECOND_USD,
    },
    { item: "DynamoDB writes", arithmetic: `${wru} WRU per run × ${runs} × $0.625/million`, usd: wru * runs * price.DYNAMODB_WRU_USD },
    {
      item: "DynamoDB reads",
      arithmetic: `(${run.pages} pages × ${PAGE_RRU} + ${IDLE_RUN_OTHER_RRU} for the run, ${STAGE_KINDS_RRU} of them the stage kinds and ${USER_IDS_RRU} the user ids, + ${tickRru.toFixed(3)} for the tick's listing and count of live runs) = ${rru.toFixed(3)} RRU per run × ${runs} × $0.125/million`,
      usd: rru * runs * price.DYNAMODB_RRU_USD,
    },
    { item: "KMS", arithmetic: `${decrypts} Decrypts per run × ${runs} × $0.03/10,000`, usd: decrypts * runs * price.KMS_REQUEST_USD },
  ];
  return { ...report(run, lines), dispatch, standardTransitionsPerRun: perRun, wruPerRun: wru };
}

/** Standard transitions per page in the steady state: a long entity's marginal cost, from two walks. */
export function standardTransitionsPerPage(): number {
  const base = Object.fromEntries(SYNC_ENTITIES.map((entity) => [entity, 1])) as Record<SyncEntity, number>;
  const pagesAdded = 8_000;
  const small = walkRun(base);
  const large = walkRun({ ...base, leads: 1 + pagesAdded });
  return (large.standardTransitions - small.standardTransitions) / pagesAdded;
}

/** The reference source's default data set, what an audit reads: its incremental entities, read off DEFAULT_SIZES so the two cannot drift. */
export const AUDITED_RECORDS: Readonly<Record<AuditEntity, number>> = Object.fromEntries(AUDIT_ENTITIES.map((entity) => [entity, DEFAULT_SIZES[entity]])) as Record<AuditEntity, number>;
/** Audits per month on the default weekly audit_schedule (52 weeks a year). */
export const WEEKLY_AUDITS_PER_MONTH = 52 / 12;
/** An audit page's BatchGetItem of its 100 stored heads, strongly consistent: 1 RRU per head under 4 KB. */
export const AUDIT_PAGE_READ_RRU = 100;
/** The ids a page returned, kept for the entity's close (one Put of about 1.5 KB). */
export const AUDIT_RETURNED_WRU = 2;
/** The entity's close reads every stored head's key (eventually consistent, whole items counted: about 0.8 KB each). */
export const AUDIT_HEAD_BYTES = 800;

/**
 * One connection-month of weekly audits of the default data set, nothing to
 * heal: each page is read, compared and committed empty (no records). Walked
 * as a run whose pipelines and users are one page each, which an audit does
 * not read: an upper bound by 2 page tasks.
 */
export function weeklyAuditConnectionMonth(): CostReport {
  const pagesPerEntity = { pipelines: 1, users: 1, ...Object.fromEntries(Object.entries(AUDITED_RECORDS).map(([entity, records]) => [entity, Math.ceil(records / RECORDS_PER_PAGE)])) } as Record<SyncEntity, number>;
  const run = walkRun(pagesPerEntity);
  const runs = WEEKLY_AUDITS_PER_MONTH;
  const records = Object.values(AUDITED_RECORDS).reduce((sum, n) => sum + n, 0);
  const wru = run.pages * (EMPTY_PAGE_WRU + AUDIT_RETURNED_WRU) + IDLE_RUN_OTHER_WRU;
  const closeRru = Math.ceil((records * AUDIT_HEAD_BYTES) / 4096) * 0.5 + run.pages * 0.5;
  const rru = run.pages * (PAGE_RRU + AUDIT_PAGE_READ_RRU) + closeRru + IDLE_RUN_OTHER_RRU;
  return report(run, [
    ...stepFunctionsLines(run, runs),
    ...lambdaLines(run, runs),
    {
      item: "DynamoDB writes",
      arithmetic: `(${run.pages} pages × (${EMPTY_PAGE_WRU} + ${AUDIT_RETURNED_WRU} returned ids) + ${IDLE_RUN_OTHER_WRU}) WRU × ${runs.toFixed(2)} audits × $0.625/million`,
      usd: wru * runs * price.DYNAMODB_WRU_USD,
    },
    {
      item: "DynamoDB reads",
      arithmetic: `(${run.pages} pages × (${PAGE_RRU} + ${AUDIT_PAGE_READ_RRU} stored heads) + ${closeRru} to close the entities + ${IDLE_RUN_OTHER_RRU}) RRU × ${runs.toFixed(2)} audits × $0.125/million`,
      usd: rru * runs * price.DYNAMODB_RRU_USD,
    },
    { item: "KMS", arithmetic: `${DECRYPTS_PER_BUSY_RUN} Decrypt per audit × ${runs.toFixed(2)} × $0.03/10,000`, usd: DECRYPTS_PER_BUSY_RUN * runs * price.KMS_REQUEST_USD },
  ]);
}
