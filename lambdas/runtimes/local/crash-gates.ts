import { AsyncLocalStorage } from "node:async_hooks";
import { PutItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { SourceClient } from "../../domain/core/ports/source-client";
import type { SyncHandlers } from "../../handlers/sync/sync-handlers";
import type { SyncState } from "../../domain/sync/sync-state";
import type { TaskContext, TaskHandler } from "./step-functions/local-step-functions";

/**
 * Crash gates: a local-only test hook (CRASH_GATES, docs/crash-consistency.md).
 * At each named point of a page the runtime announces where it is to a control
 * server on loopback and waits for its answer, so that a test can SIGKILL the
 * whole runtime exactly there. Every gate is a decorator around a port or a
 * handler; the domain knows nothing of them. Off (no decorator at all) unless
 * CRASH_GATES is set.
 */

export type GatePoint =
  /** A page task starts; `ahead`: its page came in its input, fetched early by the task before it, nothing of it written. */
  | "page-task-started"
  /** The page task is about to request the page from the source (`ahead`: the next page's early request). */
  | "before-fetch"
  /** The source answered 200; nothing of the page is written yet. */
  | "after-fetch"
  /** One TransactWriteItems of the page's records has committed (`transaction` counts from 1). */
  | "after-transaction"
  /** The page task returned (every write done); the engine has not yet recorded its result. */
  | "page-task-returned"
  /** The page was throttled and the execution has entered its Wait state (announced without blocking the engine). */
  | "waiting"
  /** The ContinueAsNew task is about to start the run's next execution. */
  | "continue-as-new"
  /** A DynamoDB call got no answer from DynamoDB Local (connection refused or reset). */
  | "store-unreachable"
  /** FinishRun has written the run's final status. */
  | "run-finished";

export interface GateAnnouncement {
  readonly point: GatePoint;
  readonly run_id?: string;
  readonly connection_id?: string;
  readonly entity?: string;
  readonly page?: number;
  /** after-transaction: 1-based position of the transaction within the page. */
  readonly transaction?: number;
  /** after-transaction: the transaction carries the page's watermark (it is the page's last). */
  readonly watermark?: boolean;
  /**
   * page-task-started: the task's page came ahead in its input. before-fetch and after-fetch: the request is
   * the next page's, made early by this page's task (`page` is then the request's). page-task-returned: the
   * result hands the next page on.
   */
  readonly ahead?: boolean;
  /** after-fetch: records on the page. */
  readonly records?: number;
  /** run-finished: the run's final status. */
  readonly status?: string;
  /** store-unreachable: the DynamoDB command that failed. */
  readonly command?: string;
}

export interface CrashGates {
  /** Resolves when the control server lets the runtime pass this point. */
  pass(announcement: GateAnnouncement): Promise<void>;
}

/** Thrown when the control server refuses a point or cannot be reached: the runtime must not go on unobserved. */
export class CrashGateError extends Error {
  override readonly name = "CrashGateError";
}

/** CRASH_GATES must name a control server on this machine: the gates never talk to anything else. */
export function isLoopbackHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
}

/** Announces each point with a POST of its JSON to the control server; any 2xx answer means "go". */
export function createCrashGates(controlUrl: string): CrashGates {
  return {
    async pass(announcement) {
      let response: Response;
      try {
        response = await fetch(controlUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(announcement),
        });
        await response.arrayBuffer();
      } catch (error) {
        throw new CrashGateError(`crash gate ${announcement.point}: the control server did not answer (${String(error)})`);
      }
      if (!response.ok) throw new CrashGateError(`crash gate ${announcement.point}: the control server answered ${response.status}`);
    },
  };
}

/** The page task in progress, as the decorators below that run inside it see it. */
interface PageInProgress {
  readonly runId: string;
  readonly connectionId: string;
  readonly entity: string;
  readonly page: number;
  transactions: number;
}

/** Set by the SyncPage decorator: the source and store decorators announce only inside a page task. */
const pageInProgress = new AsyncLocalStorage<PageInProgress>();

function pageFields(page: PageInProgress) {
  return { run_id: page.runId, connection_id: page.connectionId, entity: page.entity, page: page.page };
}

/** before-fetch and after-fetch around every page request made by a page task. */
export function gateSourceClient(source: SourceClient, gates: CrashGates): SourceClient {
  return {
    async fetchPage(connection, request) {
      const page = pageInProgress.getStore();
      if (page === undefined) return source.fetchPage(connection, request);
      // Fetched ahead, the request is for the page after the task's own: announced as that page's.
      const fields = { ...pageFields(page), page: request.page, ...(request.page === page.page ? {} : { ahead: true }) };
      await gates.pass({ point: "before-fetch", ...fields });
      const fetched = await source.fetchPage(connection, request);
      await gates.pass({ point: "after-fetch", ...fields, records: fetched.data.length });
      return fetched;
    },
  };
}

/**
 * A client middleware: after-transaction once each of a page's record
 * transactions has committed, and store-unreachable when a call gets no HTTP
 * answer at all (DynamoDB Local is gone). Added to the client's own stack.
 *
 * DynamoDB Local acknowledges a TransactWriteItems before it survives a SIGKILL
 * of its JVM (killed right after, 3 runs in 4 lost it), unlike DynamoDB; a
 * PutItem after it made it stick every time. So that "after-transaction" means
 * committed, a barrier item (its own partition, never read) is put first.
 */
export function gateDynamoDbClient(client: DynamoDBClient, gates: CrashGates): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      let output;
      try {
        output = await next(args);
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === undefined) await gates.pass({ point: "store-unreachable", command: context.commandName ?? "unknown" });
        throw error;
      }
      const page = pageInProgress.getStore();
      if (page !== undefined && context.commandName === "TransactWriteItemsCommand") {
        // Record heads are Updates (their lineage is kept in place), parts and the watermark Puts.
        type Action = { TableName?: string; Item?: Record<string, { S?: string }>; Key?: Record<string, { S?: string }> };
        const items = ((args.input as { TransactItems?: Array<{ Put?: Action; Update?: Action }> }).TransactItems ?? []).map((item) => item.Put ?? item.Update);
        const keys = items.map((item) => (item?.Item ?? item?.Key)?.["pk"]?.S ?? "");
        // The page's own transactions: record heads, parts and the watermark (not the run summary's).
        if (keys.some((pk) => pk.startsWith("REC#") || pk.startsWith("PART#") || pk.startsWith("WM#"))) {
          page.transactions += 1;
          const tableName = items.map((item) => item?.TableName).find((name) => name !== undefined);
          await client.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: BARRIER_PK }, sk: { S: "barrier" } } }));
          await gates.pass({
            point: "after-transaction",
            ...pageFields(page),
            transaction: page.transactions,
            watermark: keys.some((pk) => pk.startsWith("WM#")),
          });
        }
      }
      return output;
    },
    { step: "initialize", name: "crashGatesMiddleware" },
  );
}

/** The barrier item's partition: no store reads it (keys.ts prefixes are REC#, PART#, WM#, and the run store's). */
const BARRIER_PK = "CRASHGATE#barrier";

/** Event-log view of the engine, enough to see an execution enter its Wait state. */
export interface EngineEvents {
  events(executionRef: string): ReadonlyArray<{ readonly type: string; readonly state?: { readonly type?: string } }>;
  isRunning(executionRef: string): Promise<boolean>;
  /** The Standard execution that started this Express child, which owns the throttle Wait. */
  parentOf(executionRef: string): string | undefined;
}

/**
 * The Task handlers of the page loop with their gates: SyncPage runs inside a
 * page context and announces page-task-returned (or, for a throttled page,
 * waiting once the Standard parent is in its Wait state); FinishRun announces
 * the run's final status. ContinueAsNew, the parent's, is gated by
 * gateContinueAsNew.
 */
export function gateSyncHandlers(
  handlers: SyncHandlers,
  gates: CrashGates,
  engine: EngineEvents,
  logger: { error(message: string, fields?: Record<string, unknown>): void },
): Record<string, TaskHandler> {
  return {
    ...handlers,
    SyncPage: async (input, context) => {
      const state = input as SyncState;
      const page: PageInProgress = {
        runId: state.run.run_id,
        connectionId: state.run.connection_id,
        entity: state.cursor?.entity ?? "none",
        page: state.cursor?.page ?? 0,
        transactions: 0,
      };
      await gates.pass({ point: "page-task-started", ...pageFields(page), ...(state.step?.outcome === "next_page" && state.step.ahead !== undefined ? { ahead: true } : {}) });
      const result = await pageInProgress.run(page, () => handlers.SyncPage(input));
      if (result.step.outcome === "throttled") {
        announceWaiting(gates, engine, context, pageFields(page), logger);
        return result;
      }
      await gates.pass({ point: "page-task-returned", ...pageFields(page), ...(result.step.outcome === "next_page" && result.step.ahead !== undefined ? { ahead: true } : {}) });
      return result;
    },
    FinishRun: async (input) => {
      const result = await handlers.FinishRun(input);
      const state = input as SyncState;
      await gates.pass({ point: "run-finished", run_id: result.run_id, connection_id: state.run.connection_id, status: result.status });
      return result;
    },
  };
}

/** ContinueAsNew (the Standard parent's) announces before it starts the next execution. */
export function gateContinueAsNew(proceed: TaskHandler, gates: CrashGates): TaskHandler {
  return async (input, context) => {
      const next = (input as { Input?: { run_id?: string; connection_id?: string; continuation?: { entity?: string; page?: number } } }).Input;
      await gates.pass({
        point: "continue-as-new",
        ...(next?.run_id === undefined ? {} : { run_id: next.run_id }),
        ...(next?.connection_id === undefined ? {} : { connection_id: next.connection_id }),
        ...(next?.continuation?.entity === undefined ? {} : { entity: next.continuation.entity }),
        ...(next?.continuation?.page === undefined ? {} : { page: next.continuation.page }),
      });
      return proceed(input, context);
  };
}

/**
 * Announces "waiting" once the parent execution's event log shows it entered a
 * Wait state after this task (only the end of RunPages and Choice and Pass
 * states lie between them in statemachine/sync.asl.json). Not awaited by the task:
 * the engine must go on into the Wait for the point to be reached. Gives up
 * silently when the execution ends or goes elsewhere (retries exhausted).
 */
function announceWaiting(
  gates: CrashGates,
  engine: EngineEvents,
  context: TaskContext,
  fields: ReturnType<typeof pageFields>,
  logger: { error(message: string, fields?: Record<string, unknown>): void },
): void {
  // The Wait is the parent's: the child's segment ends on the 429 (statemachine/sync-pages.asl.json). The parent is
  // blocked in RunPages until then, so its events from now on are the ones that follow this page.
  const executionId = engine.parentOf(context.executionId) ?? context.executionId;
  const seen = engine.events(executionId).length;
  void (async () => {
    for (;;) {
      for (const event of engine.events(executionId).slice(seen)) {
        const type = event.state?.type;
        // Choice and Pass states (Route, the throttle budget and plan) lie between the task and its Wait.
        if (event.type !== "StateEntered" || type === "Choice" || type === "Pass") continue;
        if (type === "Wait") await gates.pass({ point: "waiting", ...fields });
        return;
      }
      if (!(await engine.isRunning(executionId))) return;
      // One event-loop turn lets the worker's event messages in: a wait on the engine's progress, not on the clock.
      await new Promise((resolve) => setImmediate(resolve));
    }
  })().catch((error: unknown) => logger.error("crash gate failed", { error: String(error) }));
}
