import { changedSince, pageOf } from "../../bin/reference-source/paging";
import type { SyncEntity } from "../../lambdas/domain/core/entities";
import { PAGE_SIZE } from "../../lambdas/domain/core/limits";
import { parseTimestamp } from "../../lambdas/domain/records/fields/timestamp";
import type { RawRecord } from "../builders/source-records";
import { envelope, type SourceHandler, type SourceReply, type SourceRequest } from "./source-server";

/** Records per endpoint; an entity left out answers 404 (not implemented). */
export type CrmData = Partial<Record<SyncEntity, RawRecord[]>>;

const INCREMENTAL: ReadonlySet<string> = new Set(["contacts", "leads", "tasks", "calls", "events"]);

function compared(entity: string, record: RawRecord): number {
  const stamp = entity === "events" ? (record["updated_at"] ?? record["created_at"]) : record["updated_at"];
  return Date.parse(parseTimestamp(stamp) ?? "1970-01-01T00:00:00Z");
}

/**
 * A correct source API over in-memory data, as the spec describes it: Bearer
 * auth, limit/page paging, updated_since (inclusive) and ascending order for
 * incremental endpoints (the reference source's own paging rules). Timestamps
 * are read as the service reads them, so test records may use any spec form.
 * `fault` may answer a request first (429, 503, ...).
 */
export function crmSource(
  data: () => CrmData,
  options: { readonly token: string; readonly fault?: (request: SourceRequest) => SourceReply | undefined },
): SourceHandler {
  return (request) => {
    if (request.headers.authorization !== `Bearer ${options.token}`) return { status: 401, json: { error: "invalid token" } };
    const faulted = options.fault?.(request);
    if (faulted) return faulted;
    const entity = request.path.replace(/^\//, "");
    const all = data()[entity as SyncEntity];
    if (all === undefined) return { status: 404, json: { error: "not implemented" } };
    const since = request.query.get("updated_since");
    const records = INCREMENTAL.has(entity)
      ? changedSince(all, since === null ? null : Date.parse(since), (record) => compared(entity, record))
      : all;
    const page = pageOf(records, Number(request.query.get("page")), PAGE_SIZE);
    return { json: envelope(page.data, page.hasMore) };
  };
}

/** Paths requested, in order, without repeats next to each other: the order entities were synced in. */
export function entityOrder(requests: ReadonlyArray<{ readonly path: string }>): string[] {
  return requests.map((request) => request.path).filter((path, i, all) => path !== all[i - 1]);
}
