import { checkedPartitionKey } from "../table/key-limits";

/**
 * Key layout of what an audit keeps while it runs, besides its summary (a run
 * summary item: lambdas/adapters/dynamodb/runs/run-item/):
 *
 *   returned ids   pk = AUDITSEEN#<connectionId>#<auditId>   sk = <entity>#<page, 5 digits>
 *
 * One item per page of the audit: the ids that page returned (JSON text), so
 * that once the entity is read whole the store's records it did not return
 * can be told; and those past the entity's watermark with their compared
 * timestamps (`ahead`, JSON text), whether the page held one at or below it
 * (`settled`) and the watermark, so that explain can tell a record the next
 * sync brings. `AUDITSEEN#` starts unlike every other prefix of the table
 * (REC#, PART#, WM#, RUN#, RUNLOCK#, RATE#, PREFLIGHT#, CONNECTION); an audit
 * id never holds `#`, so the last segment is the audit's whatever the
 * connection id holds. The items expire AUDIT_RETURNED_RETENTION_DAYS after
 * they were written (the table's TTL): nothing reads them after the audit.
 */
const RETURNED_PREFIX = "AUDITSEEN#";
const PAGE_DIGITS = 5;

export const AUDIT_RETURNED_RETENTION_DAYS = 7;

export const AUDIT_ATTR = { pk: "pk", sk: "sk", ids: "ids", ahead: "ahead", settled: "settled", watermark: "watermark", expiresAt: "expires_at" } as const;

export function returnedPartitionKey(connectionId: string, auditId: string): string {
  if (connectionId.length === 0 || auditId.length === 0 || auditId.includes("#")) throw new TypeError("connection and audit ids must not be empty; an audit id holds no #");
  return checkedPartitionKey(`${RETURNED_PREFIX}${connectionId}#${auditId}`);
}

export function returnedSortKey(entity: string, page: number): string {
  return `${entity}#${String(page).padStart(PAGE_DIGITS, "0")}`;
}

export function returnedEntityPrefix(entity: string): string {
  return `${entity}#`;
}
