import { hash } from "node:crypto";
import type { ManagerCollection, RowKey } from "../../../domain/analytics/manager-aggregates";
import { checkedPartitionKey } from "../table/key-limits";

/**
 * Key layout of the per-manager aggregates, the owner's links and the members
 * seen (docs/analytics-api.md, "Links" and "How the figures stay current"). Every key
 * string of these stores is built here and nowhere else.
 *
 *   snapshot header   pk = MGR#<connectionId>   sk = meta
 *   a row             pk = MGR#<connectionId>   sk = row#<row>
 *   a row's month     pk = MGR#<connectionId>   sk = month#<YYYY-MM>#<row>
 *   a row's ids       pk = MGR#<connectionId>   sk = ids#<collection>#<row>#<buckets>#<bucket>
 *   a source user's link  pk = LINK#<connectionId>  sk = user#<h(source user id)>
 *   a member's link       pk = LINK#<connectionId>  sk = member#<h(member id)>   (one source user per member and connection)
 *   a member seen         pk = MEMBERS#<account>    sk = member#<h(member id)>
 *   an email's member     pk = MEMBERS#<account>    sk = email#<h(normalised email)>
 *
 * - <row> is `u.` and h(source user id), or `~` for the unassigned row (`~`
 *   is not in base64url, so no user's row can be it). h() is sha256 in
 *   base64url (43 characters): a source user id (255 characters, up to 1020
 *   UTF-8 bytes) or a member's `sub` could not sit in a sort key beside a
 *   prefix within DynamoDB's 1024 bytes, and hashed every key has one length.
 *   The ids themselves are attributes of the items.
 * - Months sort by `YYYY-MM` first, so a period's months are one range of one Query.
 * - A row's ids of a collection are cut into <buckets> (a power of two, 4
 *   digits) by h(id): a new record rewrites one bucket, not the whole list.
 *   The bucket count is in the key, so a list that outgrows it gets new items
 *   and the old ones are deleted with the rest of what a snapshot no longer has.
 * - The three prefixes differ from every other prefix of the table (REC#,
 *   PART#, WM#, RUN#, ...), so these partitions hold nothing else.
 */

const SNAPSHOT_PREFIX = "MGR#";
const LINK_PREFIX = "LINK#";
const MEMBERS_PREFIX = "MEMBERS#";
export const META_SK = "meta";
export const ROW_SK_PREFIX = "row#";
export const MONTH_SK_PREFIX = "month#";
export const IDS_SK_PREFIX = "ids#";
export const USER_LINK_SK_PREFIX = "user#";
export const MEMBER_SK_PREFIX = "member#";
export const EMAIL_SK_PREFIX = "email#";
const BUCKET_DIGITS = 4;

/** Attribute names of the items. */
export const MANAGER_ATTR = {
  pk: "pk",
  sk: "sk",
  /** The item's content as JSON (a row, a month, an id list). */
  data: "data",
  /** The source user a row's item belongs to; absent on the unassigned row's. */
  user: "user_id",
  /** When the snapshot that wrote the item was computed (ISO): a refresh writes only over older items. */
  computedAt: "computed_at",
  signature: "signature",
  sourceUser: "source_user_id",
  /** A member's `sub`; NULL on a source user the owner unlinked. */
  member: "member_id",
  email: "email",
  /** On a member's item: their email's item names them (so a request needs no second read). */
  holdsEmail: "holds_email",
  at: "at",
} as const;

/** sha256 in base64url: what stands in a key for an id of any length. */
export const keyHash = (text: string): string => hash("sha256", text, "base64url");

export const snapshotPartitionKey = (connectionId: string): string => checkedPartitionKey(`${SNAPSHOT_PREFIX}${required(connectionId)}`);
export const linkPartitionKey = (connectionId: string): string => checkedPartitionKey(`${LINK_PREFIX}${required(connectionId)}`);
export const membersPartitionKey = (account: string): string => checkedPartitionKey(`${MEMBERS_PREFIX}${required(account)}`);

export const rowPart = (key: RowKey): string => (key.kind === "unassigned" ? "~" : `u.${keyHash(key.id)}`);
export const rowSortKey = (key: RowKey): string => `${ROW_SK_PREFIX}${rowPart(key)}`;
export const monthSortKey = (month: string, key: RowKey): string => `${MONTH_SK_PREFIX}${month}#${rowPart(key)}`;
/** The first and last sort key of the months from..to (`YYYY-MM`): `#` sorts below every character of a row part. */
export const monthRange = (fromMonth: string, toMonth: string): [string, string] => [`${MONTH_SK_PREFIX}${fromMonth}#`, `${MONTH_SK_PREFIX}${toMonth}#~`];
/** Every ids item of a row's collection starts so. */
export const idsPrefix = (collection: ManagerCollection, key: RowKey): string => `${IDS_SK_PREFIX}${collection}#${rowPart(key)}#`;
export const idsSortKey = (collection: ManagerCollection, key: RowKey, buckets: number, bucket: number): string =>
  `${idsPrefix(collection, key)}${String(buckets).padStart(BUCKET_DIGITS, "0")}#${String(bucket).padStart(BUCKET_DIGITS, "0")}`;
/** The bucket of an id among `buckets` (a power of two). */
export const idBucket = (id: string, buckets: number): number => hash("sha256", id, "buffer").readUInt32BE(0) % buckets;

export const userLinkSortKey = (sourceUserId: string): string => `${USER_LINK_SK_PREFIX}${keyHash(sourceUserId)}`;
export const memberSortKey = (memberId: string): string => `${MEMBER_SK_PREFIX}${keyHash(memberId)}`;
export const emailSortKey = (email: string): string => `${EMAIL_SK_PREFIX}${keyHash(email)}`;

function required(id: string): string {
  if (id.length === 0) throw new TypeError("an id in a manager key must not be empty");
  return id;
}
