import type { Collection } from "../core/entities";
import type { ConnectionFigures } from "./connection-figures";

/** Where a connection's figures are kept (one small item), and how its stored records are counted. */
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
}
