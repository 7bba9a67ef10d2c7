import type { Collection, StageKind, SyncEntity } from "./entities";

/**
 * The domain's ports. Adapters (DynamoDB, KMS, SFN, HTTP) and their local
 * twins implement them; domain code never imports an AWS SDK.
 */

/** Where and as whom the source is called. The token is plaintext only inside the page task. */
export interface SourceConnection {
  readonly baseUrl: string;
  readonly token: string;
}

export interface SourcePageRequest {
  /** Endpoint path, e.g. `/leads`. */
  readonly path: string;
  /** 1-based page number. */
  readonly page: number;
  /** ISO-8601 with offset; absent for /pipelines and /users. */
  readonly updatedSince?: string;
}

/** One parsed envelope. `data` is still unvalidated source JSON. */
export interface SourcePage {
  readonly data: readonly unknown[];
  readonly hasMore: boolean;
}

export interface SourceClient {
  /** Throws the Source*Error of lambdas/core/errors.ts for every non-200 outcome. */
  fetchPage(connection: SourceConnection, request: SourcePageRequest): Promise<SourcePage>;
}

/** A canonical record ready to store: where it goes, its key, its JSON document. */
export interface RecordWrite {
  readonly collection: Collection;
  /** `[id]`, or `[pipelineId, stageId]` for stages. */
  readonly key: readonly [string] | readonly [string, string];
  readonly doc: Readonly<Record<string, unknown>>;
}

export interface WatermarkWrite {
  readonly entity: SyncEntity;
  /** ISO-8601 UTC (`toISOString()` form), so that string order is time order. */
  readonly value: string;
}

/** Everything one validated page writes. */
export interface PageWrite {
  readonly connectionId: string;
  /** In write order: loss reasons come before the leads that point at them. */
  readonly records: readonly RecordWrite[];
  /** Written with the page's last records, never before them; absent when the page does not move it. */
  readonly watermark?: WatermarkWrite;
}

/** pipeline id -> stage id -> kind, for the stages synced so far. */
export type StageKinds = ReadonlyMap<string, ReadonlyMap<string, StageKind>>;

export interface RecordPage {
  readonly records: readonly Record<string, unknown>[];
  /** Opaque; null on the last page. */
  readonly nextCursor: string | null;
}

export interface RecordStore {
  getWatermark(connectionId: string, entity: SyncEntity): Promise<string | null>;
  getStageKinds(connectionId: string): Promise<StageKinds>;
  /**
   * Upserts the page's records and then its watermark. Safe to replay: every
   * write is an idempotent put, and the watermark is never ahead of the records.
   */
  commitPage(write: PageWrite): Promise<void>;
  listRecords(
    connectionId: string,
    collection: Collection,
    options: { limit: number; cursor?: string | null },
  ): Promise<RecordPage>;
}

export interface Clock {
  now(): Date;
}

/** Structured log lines (one JSON object each). Never pass the source token. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
