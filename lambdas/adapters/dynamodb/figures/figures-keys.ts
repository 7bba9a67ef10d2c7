import { checkedPartitionKey } from "../table/key-limits";

/**
 * Key layout of a connection's figures in the single table (pk S, sk S):
 *
 *   figures   pk = FIGURES#<connectionId>   sk = figures
 *
 * `FIGURES#` starts unlike every other prefix of the table (REC#, PART#, WM#, RUN#, RUNLOCK#, RATE#, PREFLIGHT#,
 * AUDITSEEN#, CONNECTION), so no partition is shared and no Query of another partition reads it. One item, the
 * figures whole as JSON in `doc`; the purge of a deleted connection deletes it.
 */
export const FIGURES_ATTR = { pk: "pk", sk: "sk", doc: "doc" } as const;

export function figuresPartitionKey(connectionId: string): string {
  if (connectionId === "") throw new TypeError("connection id unusable in a key");
  return checkedPartitionKey(`FIGURES#${connectionId}`);
}

export const FIGURES_SORT_KEY = "figures";
