/**
 * The item-level DynamoDB actions each function's code sends, and no others
 * (no Scan, no streams, no table management; BatchGetItem only where a store reads known keys). Read from the
 * entry point's code path down to the stores' commands; the store methods are
 * named so a change there can be traced here. TransactWriteItems and
 * TransactGetItems have no IAM action of their own: DynamoDB checks each item
 * action inside them (Put, Update, Delete, ConditionCheck, Get).
 *
 * test/cdk/iam.test.ts checks every role against this table, and that the
 * union covers every command lambdas/ sends.
 */
export type TableAction =
  | "dynamodb:GetItem"
  | "dynamodb:Query"
  | "dynamodb:PutItem"
  | "dynamodb:UpdateItem"
  | "dynamodb:DeleteItem"
  | "dynamodb:BatchWriteItem"
  | "dynamodb:BatchGetItem"
  | "dynamodb:ConditionCheckItem";

/**
 * Shared by the sync steps that only move a run along: runs.setExecution /
 * heartbeat / handOver / entityStarted / entityFinished (UpdateItem; GetItem
 * when a condition fails, to say why), runs.get, connections.get and
 * records.getWatermark (GetItem).
 */
const RUN_STEP: readonly TableAction[] = ["dynamodb:GetItem", "dynamodb:UpdateItem"];

/**
 * startSync (lambdas/domain/sync/start-sync.ts): runs.begin (a transaction of two
 * conditional Puts, then GetItem of the lock), runs.setExecution (UpdateItem),
 * and on a failed start or a dead holder runs.entityFinished and runs.finish
 * (UpdateItem, and DeleteItem of the lock in a transaction).
 */
const START_SYNC: readonly TableAction[] = ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"];

export const TABLE_ACCESS = {
  /** beginRun: RUN_STEP only. */
  BeginRun: RUN_STEP,
  /**
   * syncPage: limiter.acquire (GetItem, PutItem), records.getStageKinds (Query),
   * records.commitPage (TransactWriteItems: ConditionCheck on the run's lock,
   * Put of records, Update of lease, progress and watermark; GetItem of the lock
   * when the fence refuses), plus RUN_STEP. An audit's page also reads the
   * stored versions (audits.storedVersions: BatchGetItem, GetItem of parts),
   * keeps the ids it returned (PutItem), and closes an entity (audits.closeEntity:
   * Query, UpdateItem of the absent marks; runs.auditEntityClosed). It never deletes.
   */
  SyncPage: [...RUN_STEP, "dynamodb:Query", "dynamodb:PutItem", "dynamodb:ConditionCheckItem", "dynamodb:BatchGetItem"],
  /** entityFailed (and stopRun when the connection is gone): RUN_STEP only. */
  EntityFailed: RUN_STEP,
  /** stopRun: runs.get, runs.entityFinished. */
  StopRun: RUN_STEP,
  /**
   * finishRun: runs.get, runs.entityFinished, runs.finish (Update of the summary, Delete of its own lock); its
   * notices: connections.get, records.getFreshness (Query), notifications.add (a transaction of two Puts); the
   * connection's figures: figures.get (GetItem), records.listRecords and figures.count (Query), figures.put (PutItem).
   */
  FinishRun: [...RUN_STEP, "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:PutItem"],
  /**
   * The schedule tick's Task states: planDispatchPage (connections.listAllPage, Query; runs.heldLocks, BatchGetItem
   * of the run locks, to count the live runs) and claimDispatchedRun (claimRun: startSync without the start, so
   * runs.begin and a dead holder's entityFinished and finish). ListConnections also checks the paused
   * connections' freshness: records.getFreshness (Query) and, when one turned stale, notifications.add (a transaction of two Puts).
   */
  Dispatcher: ["dynamodb:Query", "dynamodb:BatchGetItem", ...START_SYNC],
  /**
   * Every authenticated route but the test: connections.put / get /
   * listByAccount / delete (PutItem, GetItem, Query, DeleteItem),
   * records.resetWatermarks on a sync_since change (UpdateItem of the lock,
   * UpdateItem of each watermark, keeping data_as_of), records.listRecords (Query,
   * TransactGetItems = GetItem; newest first, BatchGetItem of the heads the keys-only index listed),
   * runs.get / list, and startSync. The managers' routes: links and members (Query, GetItem, and
   * transactions of Puts and Deletes), the snapshot's items (Query, GetItem). The webhooks' routes: endpoints
   * (PutItem, GetItem, Query, DeleteItem) and their attempts (Query).
   */
  Api: ["dynamodb:Query", "dynamodb:BatchGetItem", ...START_SYNC],
  /**
   * refreshManagers (lambdas/domain/analytics/refresh-managers.ts): managers.recordsVersion and the record
   * scan (Query; the events by the newest index, granted apart, which lists keys: their heads by BatchGetItem;
   * a split record through records.getRecord, GetItem), the stored snapshot (Query, GetItem of its header)
   * and its items written over older ones (PutItem, DeleteItem).
   */
  ManagerRefresh: ["dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"],
  /** testConnection: connections.get (GetItem), limiter.acquire (GetItem, PutItem of the slot log). */
  TestConnectionApi: ["dynamodb:GetItem", "dynamodb:PutItem"],
  /** runPreflightJob: connections.get and preflights.get (GetItem), preflights.put and the limiter's slot (GetItem, PutItem). */
  PreflightWorker: ["dynamodb:GetItem", "dynamodb:PutItem"],
  /** failUnfinishedPreflight, the worker's on-failure destination: preflights.get (GetItem), preflights.put (PutItem). */
  PreflightFailed: ["dynamodb:GetItem", "dynamodb:PutItem"],
  /**
   * purgeDeletedConnections: purges.due and the deleted connection's partitions
   * (Query), connections.get (GetItem), the deletes (BatchWriteItem),
   * purges.remember (UpdateItem of the pending purge: where it stopped) and
   * purges.complete (DeleteItem of the pending purge). It never writes data.
   */
  PurgeDeleted: ["dynamodb:Query", "dynamodb:GetItem", "dynamodb:BatchWriteItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
  /**
   * The webhooks' deliveries (lambdas/domain/webhooks/deliver-webhooks.ts): webhooks.listEndpoints and due (Query),
   * getEndpoint (GetItem), enqueue (a transaction of two conditional Puts), claim and settle (transactions of a
   * conditional Delete and Puts).
   */
  WebhookDelivery: ["dynamodb:Query", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"],
} as const satisfies Record<string, readonly TableAction[]>;

export type TableUser = keyof typeof TABLE_ACCESS;

/** Every action some function holds: what test/cdk/iam.test.ts checks lambdas/' commands against. */
export const ALL_TABLE_ACTIONS: readonly TableAction[] = [...new Set(Object.values(TABLE_ACCESS).flat())].sort();
