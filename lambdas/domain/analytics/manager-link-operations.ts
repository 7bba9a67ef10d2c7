import * as v from "valibot";
import { TEXT_LIMITS } from "../core/limits";
import { WholeAmountSchema } from "../records/fields/price";
import { LINE_OF_TEXT } from "../core/portable-patterns";
import { RowUserSchema, type RowKey } from "./manager-aggregates";
import { findConnection } from "../onboarding/connection-operations";
import { parseFields, parseJsonBody } from "../onboarding/connection-input";
import type { ApiDeps } from "./analytics-deps";
import { NotFoundError } from "../onboarding/onboarding-errors";
import { DEFAULT_IDLE_DAYS } from "../core/idle-days";
import { figuresOf } from "./manager-figures";
import { parsePeriod } from "./period";
import { monthOfDay } from "./utc-days";
import { linksOf } from "./viewer";

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const ManagerEntrySchema = v.object({
  source_user: v.nonNullable(RowUserSchema),
  /** The member (`sub`) the source user is linked to; null when none. */
  member_id: v.nullable(v.string()),
  /** How: `owner` (linked here), `email` (the member's session email equals the user's); null when not linked. */
  linked_by: v.nullable(v.picklist(["owner", "email"])),
  /** The owner unlinked this user: no email links it again until the owner links it or sets it back to automatic. */
  unlinked: v.boolean(),
  /** The last 30 days (UTC) of the stored figures; null when the user owns no record. */
  summary: v.nullable(v.object({ leads_open: count, won: count, revenue_won: WholeAmountSchema, tasks_overdue: count })),
});
export type ManagerEntry = v.InferOutput<typeof ManagerEntrySchema>;
export const ManagerListSchema = v.object({ data: v.array(ManagerEntrySchema) });

const MEMBER_RULE = `must be a member's user id (the session's sub): 1 to ${TEXT_LIMITS.id} characters, one line`;
/** PUT body: the member to link, or null to hand the user back to email matching. */
export const SetManagerLinkSchema = v.object({
  user_id: v.nullable(
    v.pipe(v.string(MEMBER_RULE), v.nonEmpty(MEMBER_RULE), v.maxLength(TEXT_LIMITS.id, MEMBER_RULE), v.regex(LINE_OF_TEXT, MEMBER_RULE)),
  ),
});

/** GET /crm/custom/connections/{id}/managers: the source users, their links and a summary of their figures. */
export async function listManagers(deps: ApiDeps, account: string, id: string): Promise<{ data: ManagerEntry[] }> {
  const connection = await findConnection(deps, account, id);
  const now = deps.clock.now();
  const period = parsePeriod({}, now);
  const [{ users, links }, explicit, rows, months] = await Promise.all([
    linksOf(deps, account, connection),
    deps.managers.listLinks(id),
    deps.managers.getRows(id),
    deps.managers.getMonths(id, monthOfDay(period.from), monthOfDay(period.to)),
  ]);
  const unlinked = new Set(explicit.filter((link) => link.memberId === null).map((link) => link.sourceUserId));
  const isUser = (key: RowKey, userId: string) => key.kind === "user" && key.id === userId;
  const data = users.map((user): ManagerEntry => {
    const link = links.get(user.id);
    const row = rows.find((entry) => isUser(entry.key, user.id));
    const figures = row === undefined ? null : figuresOf(row.row, months.filter((m) => isUser(m.key, user.id)).map((m) => m.days), period, now, connection.idle_days ?? DEFAULT_IDLE_DAYS);
    const doc = user.doc;
    return {
      source_user: { id: user.id, name: text(doc["name"]), email: user.email, role: text(doc["role"]), is_active: user.is_active },
      member_id: link?.memberId ?? null,
      linked_by: link?.kind === "owner" || link?.kind === "email" ? link.kind : null,
      unlinked: unlinked.has(user.id),
      summary: figures === null ? null : { leads_open: figures.leads.open, won: figures.leads.won, revenue_won: figures.leads.revenue_won, tasks_overdue: figures.tasks.overdue },
    };
  });
  return { data: data.sort((a, b) => (a.source_user.name ?? a.source_user.id).localeCompare(b.source_user.name ?? b.source_user.id) || a.source_user.id.localeCompare(b.source_user.id)) };
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** The source user a path names, among the connection's stored users; NotFoundError otherwise. */
async function entryOf(deps: ApiDeps, account: string, id: string, sourceUserId: string): Promise<ManagerEntry> {
  const entry = (await listManagers(deps, account, id)).data.find((candidate) => candidate.source_user.id === sourceUserId);
  if (entry === undefined) throw new NotFoundError(`no source user ${sourceUserId.slice(0, 40)} on this connection`);
  return entry;
}

/**
 * PUT .../managers/{sourceUserId} `{ "user_id": "<member sub>" }` links the
 * source user to that member (the member's earlier link on this connection
 * goes); `{ "user_id": null }` hands it back to email matching.
 */
export async function setManagerLink(deps: ApiDeps, account: string, id: string, sourceUserId: string, body: string | undefined): Promise<ManagerEntry> {
  // The connection and the user first: an unknown one is a 404 whatever the body.
  await entryOf(deps, account, id, sourceUserId);
  const input = parseFields(SetManagerLinkSchema, parseJsonBody(body));
  await deps.managers.setLink(id, sourceUserId, input.user_id ?? "automatic", deps.clock.now().toISOString());
  deps.logger.info("manager link set", { business_account_id: account, connection_id: id, linked: input.user_id !== null });
  return entryOf(deps, account, id, sourceUserId);
}

/** DELETE .../managers/{sourceUserId}: unlinked by the owner, and it sticks (no email links it again). */
export async function unlinkManager(deps: ApiDeps, account: string, id: string, sourceUserId: string): Promise<ManagerEntry> {
  await entryOf(deps, account, id, sourceUserId);
  await deps.managers.setLink(id, sourceUserId, null, deps.clock.now().toISOString());
  deps.logger.info("manager unlinked", { business_account_id: account, connection_id: id });
  return entryOf(deps, account, id, sourceUserId);
}
