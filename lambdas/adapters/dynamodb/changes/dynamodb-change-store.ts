import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { CHANGE_RETENTION_SECONDS, type ChangeEntry } from "../../../domain/core/change-feed";
import { ChangesExpiredError, InvalidCursorError } from "../../../domain/core/errors";
import type { ChangeCommitPage, ChangeStore } from "../../../domain/core/ports/change-store";
import { queryPages } from "../table/query-all";
import { DynamoDbTableAdapter } from "../table/dynamodb-table-adapter";
import { SORT_KEY_MAX_BYTES, utf8Bytes } from "../table/key-limits";
import { ATTR, changePartitionKey } from "../records/keys";
import { decodeChangeEntries, runCommitPrefix } from "../records/page-history";

type Item = Record<string, AttributeValue>;

/** Where a reader stands: after the first `n` entries of the commit item `s`, known current at `at`. */
interface Position {
  readonly s: string;
  readonly n: number;
  /** No commit after this position was made before this time, so none of them expired before at + the retention. */
  readonly at: string;
}

/**
 * Reads the change feed the page transactions write (../records/page-history.ts):
 * one Query of the connection's change partition from the cursor on, in sort
 * key order, which is commit order. Items past their expiry are hidden (TTL
 * deletes them within days, not at once).
 */
export class DynamoDbChangeStore extends DynamoDbTableAdapter implements ChangeStore {
  async listChanges(connectionId: string, options: { readonly cursor: string | null; readonly limit: number; readonly now: Date }): Promise<ChangeCommitPage> {
    const { limit, now } = options;
    const start = options.cursor === null ? null : decodeCursor(options.cursor);
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (start !== null && Date.parse(start.at) / 1000 + CHANGE_RETENTION_SECONDS <= nowSeconds) {
      throw new ChangesExpiredError(`the cursor is from ${start.at}, older than the ${CHANGE_RETENTION_SECONDS / 86_400} days the feed keeps: read the records route again, then follow the feed from a request without a cursor`);
    }
    const entries: ChangeCommitPage["entries"][number][] = [];
    let position: Position = start ?? { s: "", n: 0, at: now.toISOString() };
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: start === null || start.s === "" ? "#pk = :pk" : "#pk = :pk AND #sk >= :sk",
      FilterExpression: "#expires > :now",
      ExpressionAttributeNames: { "#pk": ATTR.pk, "#expires": ATTR.expiresAt, ...(start === null || start.s === "" ? {} : { "#sk": ATTR.sk }) },
      ExpressionAttributeValues: { ":pk": { S: changePartitionKey(connectionId) }, ":now": { N: String(nowSeconds) }, ...(start === null || start.s === "" ? {} : { ":sk": { S: start.s } }) },
      ConsistentRead: true,
    });
    for await (const items of pages) {
      for (const item of items) {
        const sk = item[ATTR.sk]?.S ?? "";
        const committedAt = item[ATTR.committedAt]?.S ?? "";
        const runId = item["run_id"]?.S ?? "";
        const all = parseEntries(item);
        const skip = sk === position.s ? position.n : 0;
        const taken = all.slice(skip, skip + limit - entries.length);
        for (const entry of taken) entries.push({ ...entry, runId, committedAt });
        position = { s: sk, n: skip + taken.length, at: committedAt };
        if (entries.length >= limit) return { entries, nextCursor: encodeCursor(position) };
      }
    }
    // Caught up: nothing committed after this position yet, so it stays good for the retention from now.
    return { entries, nextCursor: encodeCursor({ ...position, at: now.toISOString() }) };
  }

  /** The first (or last) change item of one run, by its sort key prefix: one item read. */
  private async runEdge(connectionId: string, runId: string, first: boolean): Promise<Item | undefined> {
    for await (const items of queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :run)",
      ExpressionAttributeNames: { "#pk": ATTR.pk, "#sk": ATTR.sk },
      ExpressionAttributeValues: { ":pk": { S: changePartitionKey(connectionId) }, ":run": { S: runCommitPrefix(runId) } },
      ScanIndexForward: first,
      Limit: 1,
      ConsistentRead: true,
    })) {
      return items[0];
    }
    return undefined;
  }

  async runRange(connectionId: string, runId: string): Promise<{ readonly from: string; readonly to: string } | null> {
    const [first, last] = await Promise.all([this.runEdge(connectionId, runId, true), this.runEdge(connectionId, runId, false)]);
    if (first === undefined || last === undefined) return null;
    const at = (item: Item) => item[ATTR.committedAt]?.S ?? "";
    // Before the run's first commit (no entry of it read yet), and after every entry of its last.
    return {
      from: encodeCursor({ s: first[ATTR.sk]?.S ?? "", n: 0, at: at(first) }),
      to: encodeCursor({ s: last[ATTR.sk]?.S ?? "", n: parseEntries(last).length, at: at(last) }),
    };
  }
}

function parseEntries(item: Item): ChangeEntry[] {
  return decodeChangeEntries(item[ATTR.body]?.S ?? "[]");
}

function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function decodeCursor(cursor: string): Position {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error("not base64url");
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<Position> | null;
    const { s, n, at } = parsed ?? {};
    if (typeof s !== "string" || utf8Bytes(s) > SORT_KEY_MAX_BYTES) throw new Error("no sort key");
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw new Error("no entry count");
    if (typeof at !== "string" || !ISO.test(at) || Number.isNaN(Date.parse(at))) throw new Error("no time");
    return { s, n, at };
  } catch (error) {
    throw new InvalidCursorError("cursor is not one this feed issued", { cause: error });
  }
}
