import { DynamoDbAuditStore } from "./audits/dynamodb-audit-store";
import { DynamoDbConnectionStore } from "./connections/dynamodb-connection-store";
import { DynamoDbFiguresStore } from "./figures/dynamodb-figures-store";
import { DynamoDbManagerStore } from "./managers/dynamodb-manager-store";
import { DynamoDbNotificationStore } from "./notifications/dynamodb-notification-store";
import { DynamoDbPreflightStore } from "./preflight-runs/dynamodb-preflight-store";
import { DynamoDbPurgeQueue } from "./purges/dynamodb-purge-queue";
import { DynamoDbRateLimiter } from "./rate-limit/dynamodb-rate-limiter";
import { DynamoDbRecordStore } from "./records/dynamodb-record-store";
import { DynamoDbRecordScan } from "./records/record-scan";
import { DynamoDbRunStore } from "./runs/dynamodb-run-store";
import type { DynamoDbTableOptions } from "./table/dynamodb-table-adapter";
import { DynamoDbHistoryStore } from "./history/dynamodb-history-store";
import { DynamoDbChangeStore } from "./changes/dynamodb-change-store";
import { DynamoDbWebhookStore } from "./webhooks/dynamodb-webhook-store";

/** Every adapter on the single table, over one client. */
export interface DynamoDbAdapters {
  readonly records: DynamoDbRecordStore;
  readonly runs: DynamoDbRunStore;
  readonly connections: DynamoDbConnectionStore;
  /** Keeps this process's queue of waiting calls: one per process, shared by everything that fetches. */
  readonly limiter: DynamoDbRateLimiter;
  readonly audits: DynamoDbAuditStore;
  readonly notifications: DynamoDbNotificationStore;
  readonly preflights: DynamoDbPreflightStore;
  readonly purges: DynamoDbPurgeQueue;
  /** The connection's figures (funnel, records per collection), kept at each run's end. */
  readonly figures: DynamoDbFiguresStore;
  /** The per-manager aggregates, the owner's links and the members seen (docs/analytics-api.md). */
  readonly managers: DynamoDbManagerStore;
  /** Every record of a collection, shard by shard: what the per-manager refresh reads. */
  readonly recordScan: DynamoDbRecordScan;
  /** Reads the leads' stage history the record store's page transactions write. */
  readonly history: DynamoDbHistoryStore;
  /** Reads the change feed the record store's page transactions write. */
  readonly changes: DynamoDbChangeStore;
  /** The workspaces' webhook endpoints, the deliveries due and the attempts made (docs/webhooks.md). */
  readonly webhooks: DynamoDbWebhookStore;
}

/**
 * The one place the DynamoDB adapters are built: both composition roots (AWS
 * and local) and the bench take them from here, so a new store is wired once.
 * Building one is cheap (no call is made), so a root takes all and uses some.
 */
export function dynamoDbAdapters(table: DynamoDbTableOptions): DynamoDbAdapters {
  const records = new DynamoDbRecordStore(table);
  const recordScan = new DynamoDbRecordScan(table, records);
  return {
    records,
    runs: new DynamoDbRunStore(table),
    connections: new DynamoDbConnectionStore(table),
    limiter: new DynamoDbRateLimiter(table),
    audits: new DynamoDbAuditStore(table),
    notifications: new DynamoDbNotificationStore(table),
    preflights: new DynamoDbPreflightStore(table),
    purges: new DynamoDbPurgeQueue(table),
    figures: new DynamoDbFiguresStore(table, recordScan),
    managers: new DynamoDbManagerStore(table),
    recordScan,
    history: new DynamoDbHistoryStore(table),
    changes: new DynamoDbChangeStore(table),
    webhooks: new DynamoDbWebhookStore(table),
  };
}
