import type { Collection } from "../core/entities";
import type { ConnectionFigures } from "./connection-figures";

/** Where a connection's figures are kept (one small item), and how its stored records are counted. */
export interface FiguresStore {
  /** The figures last kept; null when none have been. */
  get(connectionId: string): Promise<ConnectionFigures | null>;
  put(connectionId: string, figures: ConnectionFigures): Promise<void>;
  /** How many records of the collection are stored, counted without reading their documents. */
  count(connectionId: string, collection: Collection): Promise<number>;
}
