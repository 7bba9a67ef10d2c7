import type { Collection } from "../core/entities";
import type { RecordScan } from "../core/ports/record-scan";
import type { ConnectionFigures } from "./connection-figures";

/** Where a connection's figures are kept (one small item), and how its stored records are read and counted. */
export interface FiguresStore {
  /** The figures last kept; null when none have been. */
  get(connectionId: string): Promise<ConnectionFigures | null>;
  put(connectionId: string, figures: ConnectionFigures): Promise<void>;
  /**
   * Each synced entity's stored version: what moves when a run stores a change of it (its watermark, its whole
   * listing's hash). A run that leaves every version as it was changed nothing the figures are computed from.
   */
  versions(connectionId: string): Promise<Readonly<Record<string, string>>>;
  /** How many records of the collection are stored, counted without reading their documents. */
  count(connectionId: string, collection: Collection): Promise<number>;
  /**
   * Every stored record of the collection, a page at a time, in no order (what the funnel is computed from): the
   * unordered scan the per-manager refresh reads, not the key-ordered listing, which merges its shards a page of
   * 1,000 at a time and read 100,000 leads too slowly for a run's end (docs/performance.md).
   */
  readonly scan: RecordScan["scan"];
}
