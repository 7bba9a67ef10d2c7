import { describe, expect, test } from "vitest";
import { SYNC_ENTITIES } from "../../../lambdas/domain/core/entities";
import { freshnessHours, oldestDataAgeHours, staleEntities, type Freshness } from "../../../lambdas/domain/core/freshness";
import { REQUIRED_ENTITIES } from "../../../lambdas/domain/source-contract/entity-catalog";
import { scheduleIntervalMs } from "../../../lambdas/domain/sync/schedule-interval";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const CREATED = "2026-01-01T00:00:00.000Z";
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString();
/** Every entity synced `hours` ago, then the overrides. */
const freshness = (hours: number, overrides: Partial<Freshness> = {}): Freshness =>
  ({ ...Object.fromEntries(SYNC_ENTITIES.map((entity) => [entity, { data_as_of: hoursAgo(hours), watermark: null }])), ...overrides }) as Freshness;
const stale = (f: Freshness, hours: number | null, createdAt = CREATED) =>
  staleEntities({ freshness: f, hours, required: REQUIRED_ENTITIES, createdAt, now: NOW });

describe("freshness and stale", () => {
  test("stale when any required entity's data is older than freshness_hours", () => {
    expect(stale(freshness(1), 2)).toEqual([]);
    expect(stale(freshness(1, { leads: { data_as_of: hoursAgo(3), watermark: null } }), 2)).toEqual([{ entity: "leads", data_as_of: hoursAgo(3) }]);
    // Exactly at the limit is not older than it.
    expect(stale(freshness(2), 2)).toEqual([]);
  });

  test("an optional entity's old data never makes the connection stale", () => {
    expect(REQUIRED_ENTITIES).toEqual(["pipelines", "users", "contacts", "leads"]);
    const old = { data_as_of: hoursAgo(500), watermark: null };
    expect(stale(freshness(1, { tasks: old, calls: old, events: old }), 2)).toEqual([]);
  });

  test("freshness_hours defaults to twice the schedule interval, and nothing is stale without either", () => {
    expect(freshnessHours(undefined, scheduleIntervalMs("1h"))).toBe(2);
    expect(freshnessHours(undefined, scheduleIntervalMs("15m"))).toBe(1);
    expect(freshnessHours(undefined, scheduleIntervalMs("rate(6 hours)"))).toBe(12);
    expect(freshnessHours(undefined, scheduleIntervalMs("rate(1 day)"))).toBe(48);
    expect(freshnessHours(5, scheduleIntervalMs("1h"))).toBe(5);
    expect(freshnessHours(undefined, scheduleIntervalMs("off"))).toBeNull();
    expect(freshnessHours(undefined, scheduleIntervalMs("cron(0 * * * ? *)"))).toBeNull();
    expect(freshnessHours(undefined, scheduleIntervalMs(undefined))).toBeNull();
    expect(stale(freshness(10_000), null)).toEqual([]);
  });

  test("an entity never synced counts from the connection's creation: a new connection is not stale before its first runs could happen", () => {
    const never = { data_as_of: null, watermark: null };
    const unsynced = freshness(1, { pipelines: never });
    expect(stale(unsynced, 2, hoursAgo(1))).toEqual([]);
    expect(stale(unsynced, 2, hoursAgo(3))).toEqual([{ entity: "pipelines", data_as_of: null }]);
  });

  test("the age of the oldest data is that of the oldest required entity, in hours", () => {
    expect(oldestDataAgeHours(freshness(1, { users: { data_as_of: hoursAgo(7.5), watermark: null }, events: { data_as_of: hoursAgo(99), watermark: null } }), REQUIRED_ENTITIES, CREATED, NOW)).toBe(7.5);
  });
});
