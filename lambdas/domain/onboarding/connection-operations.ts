import { randomUUID } from "node:crypto";
import { DEFAULT_RATE_LIMIT } from "../core/limits";
import type { StoredConnection } from "../core/connection";
import { startSync } from "../sync/start-sync";
import {
  CreateConnectionSchema,
  parseFields,
  UpdateConnectionSchema,
} from "./connection-input";
import { healthOf, OVERVIEW_RUNS, overviewOf, type ConnectionOverview } from "./connection-overview";
import { connectionResource, type ConnectionResource } from "./connection-resource";
import type { OnboardingDeps } from "./onboarding-deps";
import { InvalidFieldError, NotFoundError } from "./onboarding-errors";

/** sync_since when none is given: 1 January of the current year, 00:00 UTC. */
export function defaultSyncSince(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), 0, 1)).toISOString();
}

/** base_url rules beyond its type: absolute http(s), trailing slash stripped, no refused address literal. */
export function sourceBaseUrl(deps: Pick<OnboardingDeps, "baseUrls">, raw: string): string {
  const checked = deps.baseUrls.check(raw);
  if (!checked.ok) throw new InvalidFieldError("base_url", checked.rule);
  return checked.url;
}

/**
 * Parses a body whose base_url also has to pass `sourceBaseUrl`: a broken base_url is named in the same 422 as the
 * other broken fields (first, as it is the form's first field), not only once they are fixed.
 */
export function parseWithBaseUrl<T>(deps: Pick<OnboardingDeps, "baseUrls">, body: Record<string, unknown>, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const raw = body["base_url"];
    if (!(error instanceof InvalidFieldError) || typeof raw !== "string" || raw.trim() === "" || error.problems.some((problem) => problem.field === "base_url")) throw error;
    const checked = deps.baseUrls.check(raw.trim());
    throw checked.ok ? error : new InvalidFieldError("base_url", checked.rule, error.problems);
  }
}

/**
 * Tenant-scoped lookup: another workspace's id is NotFound, exactly like an
 * unknown one, and so is an id too long to be a key. Every route that takes a
 * connection id comes through here.
 */
export async function findConnection(deps: Pick<OnboardingDeps, "connections" | "keySpace">, account: string, id: string): Promise<StoredConnection> {
  const stored = deps.keySpace.isStorableConnectionId(account, id) ? await deps.connections.get(account, id) : null;
  if (stored === null) throw new NotFoundError(`no connection ${id}`);
  return stored;
}

export async function createConnection(
  deps: OnboardingDeps,
  account: string,
  body: Record<string, unknown>,
): Promise<ConnectionResource> {
  const input = parseWithBaseUrl(deps, body, () => parseFields(CreateConnectionSchema, body));
  const baseUrl = sourceBaseUrl(deps, input.base_url);
  const now = deps.clock.now();
  const id = randomUUID();
  const stored: StoredConnection = {
    id,
    business_account_id: account,
    crm_type: "custom",
    base_url: baseUrl,
    ...(input.name === undefined ? {} : { name: input.name }),
    rate_limit: input.rate_limit ?? DEFAULT_RATE_LIMIT,
    sync_since: input.sync_since ?? defaultSyncSince(now),
    ...(input.freshness_hours === undefined ? {} : { freshness_hours: input.freshness_hours }),
    ...(input.audit_schedule === undefined ? {} : { audit_schedule: input.audit_schedule }),
    ...(input.idle_days === undefined ? {} : { idle_days: input.idle_days }),
    ...(input.stage_event_type === undefined || input.stage_event_type === null ? {} : { stage_event_type: input.stage_event_type }),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    token_ciphertext: await deps.cipher.encrypt(input.token, { businessAccountId: account, connectionId: id }),
  };
  await deps.connections.put(stored);
  deps.logger.info("connection created", { business_account_id: account, connection_id: id, base_url: baseUrl });

  if (input.trigger_sync === true) {
    // The connection exists whatever happens next: a queue that is down only means no sync yet.
    try {
      await startSync(deps, stored);
    } catch (error) {
      deps.logger.warn("connection created but its first sync could not be queued", {
        connection_id: id,
        error: error instanceof Error ? error.name : String(error),
      });
    }
  }
  return connectionResource(deps, stored);
}

/** The workspace's connections, each with its overview: two Queries per connection (watermarks, newest runs), all at once. */
export async function listConnections(deps: OnboardingDeps, account: string): Promise<ConnectionOverview[]> {
  return Promise.all(
    (await deps.connections.listByAccount(account)).map(async (stored) => {
      const [resource, runs] = await Promise.all([connectionResource(deps, stored), deps.runs.list(stored.id, { limit: OVERVIEW_RUNS })]);
      return { ...resource, health: healthOf(runs, resource.stale), ...overviewOf(runs) };
    }),
  );
}

export async function getConnection(deps: OnboardingDeps, account: string, id: string): Promise<ConnectionResource> {
  return connectionResource(deps, await findConnection(deps, account, id));
}

/**
 * Changes any of name, base_url, token, rate_limit, sync_since. A changed sync_since
 * clears the incremental watermarks, so the next run re-reads every entity from
 * the new date (upserts make the overlap harmless).
 */
export async function updateConnection(
  deps: OnboardingDeps,
  account: string,
  id: string,
  body: Record<string, unknown>,
): Promise<ConnectionResource> {
  const input = parseWithBaseUrl(deps, body, () => parseFields(UpdateConnectionSchema, body));
  const current = await findConnection(deps, account, id);
  const { freshness_hours: _previous, name: _previousName, idle_days: _previousIdle, stage_event_type: _previousType, ...kept } = current;
  const stageEventType = input.stage_event_type === undefined ? current.stage_event_type : (input.stage_event_type ?? undefined);
  // null goes back to the default; absent keeps it.
  const idleDays = input.idle_days === undefined ? current.idle_days : (input.idle_days ?? undefined);
  const freshness = input.freshness_hours === undefined ? current.freshness_hours : (input.freshness_hours ?? undefined);
  // null removes the name; absent keeps it.
  const name = input.name === undefined ? current.name : (input.name ?? undefined);
  const next: StoredConnection = {
    ...kept,
    ...(freshness === undefined ? {} : { freshness_hours: freshness }),
    ...(name === undefined ? {} : { name }),
    ...(idleDays === undefined ? {} : { idle_days: idleDays }),
    ...(stageEventType === undefined ? {} : { stage_event_type: stageEventType }),
    ...(input.base_url === undefined ? {} : { base_url: sourceBaseUrl(deps, input.base_url) }),
    ...(input.rate_limit === undefined ? {} : { rate_limit: input.rate_limit }),
    ...(input.sync_since === undefined ? {} : { sync_since: input.sync_since }),
    ...(input.audit_schedule === undefined ? {} : { audit_schedule: input.audit_schedule }),
    ...(input.token === undefined
      ? {}
      : { token_ciphertext: await deps.cipher.encrypt(input.token, { businessAccountId: account, connectionId: id }) }),
    updated_at: deps.clock.now().toISOString(),
  };
  await deps.connections.put(next);
  if (input.sync_since !== undefined && input.sync_since !== current.sync_since) {
    await deps.records.resetWatermarks(id);
  }
  deps.logger.info("connection updated", {
    business_account_id: account,
    connection_id: id,
    fields: Object.keys(input).filter((key) => input[key as keyof typeof input] !== undefined),
  });
  return connectionResource(deps, next);
}

/** Stops syncing: the connection and its encrypted token are deleted; its data is purged an hour later (docs/retention.md). */
export async function deleteConnection(deps: OnboardingDeps, account: string, id: string): Promise<void> {
  await findConnection(deps, account, id);
  await deps.connections.delete(account, id);
  deps.logger.info("connection deleted", { business_account_id: account, connection_id: id });
}
