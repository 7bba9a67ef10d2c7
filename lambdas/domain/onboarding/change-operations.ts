import * as v from "valibot";
import type { ChangesPage } from "../core/change-feed";
import type { RecordWrite } from "../core/ports/record-store";
import { findConnection } from "./connection-operations";
import { parseFields } from "./connection-input";
import type { OnboardingDeps } from "./onboarding-deps";

export const CHANGES_DEFAULT_LIMIT = 100;
export const CHANGES_MAX_LIMIT = 1000;
const LIMIT_RULE = `must be an integer from 1 to ${CHANGES_MAX_LIMIT}`;

const ChangesQuerySchema = v.object({
  limit: v.optional(
    v.pipe(v.string(LIMIT_RULE), v.regex(/^\d+$/, LIMIT_RULE), v.transform(Number), v.minValue(1, LIMIT_RULE), v.maxValue(CHANGES_MAX_LIMIT, LIMIT_RULE)),
    String(CHANGES_DEFAULT_LIMIT),
  ),
  cursor: v.optional(v.pipe(v.string(), v.nonEmpty("must not be empty"))),
});

/**
 * GET .../connections/{id}/changes?cursor=&limit=: what the syncs and audits
 * committed, in commit order across entities, each record once per commit
 * with its latest stored version; a soft-deleted lead as a delete. Without a
 * cursor it starts at the oldest commit kept; `next_cursor` always resumes
 * after the last change returned. A cursor older than the feed keeps is a
 * 410 (ChangesExpiredError), an unknown one a 422.
 */
export async function listChanges(
  deps: Pick<OnboardingDeps, "connections" | "keySpace" | "changes" | "records" | "clock">,
  account: string,
  id: string,
  query: Record<string, string | undefined>,
): Promise<ChangesPage> {
  await findConnection(deps, account, id);
  const { limit, cursor } = parseFields(ChangesQuerySchema, query);
  const page = await deps.changes.listChanges(id, { cursor: cursor ?? null, limit, now: deps.clock.now() });
  const records = await Promise.all(page.entries.map((entry) => deps.records.getRecord(id, entry.collection, entry.key as RecordWrite["key"])));
  const data = page.entries.map((entry, index) => ({
    entity: entry.collection,
    id: entry.key[entry.key.length - 1]!,
    ...(entry.collection === "stages" ? { pipeline_id: entry.key[0]! } : {}),
    action: entry.action,
    committed_at: entry.committedAt,
    run_id: entry.runId,
    record: records[index]?.record ?? null,
  }));
  return { data, next_cursor: page.nextCursor };
}
