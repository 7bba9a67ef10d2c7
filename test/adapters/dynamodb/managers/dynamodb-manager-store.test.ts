import { describe, expect, test } from "vitest";
import { DynamoDbManagerStore, IDS_BUCKET_BYTES } from "../../../../lambdas/adapters/dynamodb/managers/dynamodb-manager-store";
import { ManagerAggregateBuilder } from "../../../../lambdas/domain/analytics/aggregate-builder";
import { LinkChangedError } from "../../../../lambdas/domain/analytics/analytics-errors";
import { InvalidCursorError } from "../../../../lambdas/domain/core/errors";
import type { ManagerSnapshot } from "../../../../lambdas/domain/analytics/manager-aggregates";
import { SORT_KEY_MAX_BYTES, utf8Bytes } from "../../../../lambdas/adapters/dynamodb/table/key-limits";
import { TEXT_LIMITS } from "../../../../lambdas/domain/core/limits";
import { useTestTable } from "../../../support/dynamodb";
import { rejectedWith } from "../../../support/rejected-with";

const table = useTestTable();
const store = new DynamoDbManagerStore(table);
let next = 0;
const connection = () => `conn-managers-${(next += 1)}`;

function snapshotOf(at: string, leads: { id: string; user: string | null; created?: string }[], users = ["u1", "u2"]): ManagerSnapshot {
  const builder = new ManagerAggregateBuilder(new Date(at));
  for (const id of users) builder.addUser({ id, name: id });
  for (const lead of leads) builder.addLead({ id: lead.id, responsible_user_id: lead.user, created_at: lead.created ?? "2026-03-10T00:00:00.000Z" });
  return builder.build(`v-${at}`);
}

describe("the snapshot: only what changed is written, and never over a newer one", () => {
  test("saving the same figures again writes the header only; one changed lead rewrites its row and month", async () => {
    const id = connection();
    const leads = Array.from({ length: 40 }, (_, i) => ({ id: `l${i}`, user: i % 2 === 0 ? "u1" : "u2", created: `2026-0${1 + (i % 3)}-10T00:00:00.000Z` }));
    const first = await store.saveSnapshot(id, snapshotOf("2026-03-31T12:00:00.000Z", leads));
    expect(first.written).toBeGreaterThan(8);
    expect(await store.saveSnapshot(id, snapshotOf("2026-03-31T13:00:00.000Z", leads))).toEqual({ written: 1, deleted: 0 });
    const moved = leads.map((lead) => (lead.id === "l0" ? { ...lead, user: "u2" } : lead));
    const again = await store.saveSnapshot(id, snapshotOf("2026-03-31T14:00:00.000Z", moved));
    // Both rows, the January month of both, the lead lists of both, the header.
    expect(again).toEqual({ written: 7, deleted: 0 });
    expect((await store.getMeta(id))?.computedAt).toBe("2026-03-31T14:00:00.000Z");
  });

  test("what a snapshot no longer has is deleted: a user's row that owns nothing any more goes", async () => {
    const id = connection();
    await store.saveSnapshot(id, snapshotOf("2026-03-31T12:00:00.000Z", [{ id: "a", user: "u1" }, { id: "b", user: "u2" }]));
    const saved = await store.saveSnapshot(id, snapshotOf("2026-03-31T13:00:00.000Z", [{ id: "a", user: "u1" }, { id: "b", user: "u1" }]));
    expect(saved.deleted).toBe(3); // u2's row, month and lead list
    expect((await store.getRows(id)).map((row) => row.key)).toEqual([{ kind: "user", id: "u1" }]);
  });

  test("a refresh that computed earlier and saves later changes nothing: the newer snapshot's items stay", async () => {
    const id = connection();
    await store.saveSnapshot(id, snapshotOf("2026-03-31T13:00:00.000Z", [{ id: "a", user: "u1" }, { id: "b", user: "u1" }]));
    await store.saveSnapshot(id, snapshotOf("2026-03-31T12:00:00.000Z", [{ id: "a", user: "u2" }]));
    expect((await store.getRows(id)).map((row) => [row.key, row.row.owns.leads])).toEqual([[{ kind: "user", id: "u1" }, 2]]);
    expect((await store.getMeta(id))?.computedAt).toBe("2026-03-31T13:00:00.000Z");
  });

  test("a period's months are one range: from its first month to its last, both included", async () => {
    const id = connection();
    const leads = ["2025-12-31T23:59:59.999Z", "2026-01-01T00:00:00.000Z", "2026-02-28T00:00:00.000Z", "2026-03-01T00:00:00.000Z"].map((created, i) => ({ id: `l${i}`, user: "u1", created }));
    await store.saveSnapshot(id, snapshotOf("2026-03-31T12:00:00.000Z", leads));
    expect((await store.getMonths(id, "2026-01", "2026-02")).map((month) => month.month)).toEqual(["2026-01", "2026-02"]);
  });
});

describe("a row's record ids, paged", () => {
  test("a row whose ids outgrow one bucket is cut into several; paging through them gives every id exactly once", async () => {
    const id = connection();
    const leads = Array.from({ length: 4000 }, (_, i) => ({ id: `lead-${String(i).padStart(6, "0")}-${"x".repeat(30)}`, user: "u1" }));
    await store.saveSnapshot(id, snapshotOf("2026-03-31T12:00:00.000Z", leads));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await store.listIds(id, { kind: "user", id: "u1" }, "leads", { limit: 700, cursor });
      seen.push(...page.ids);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(4000 * 44).toBeGreaterThan(IDS_BUCKET_BYTES * 2);
    expect(pages).toBe(Math.ceil(4000 / 700));
    expect(new Set(seen).size).toBe(4000);
    expect(seen.sort()).toEqual(leads.map((lead) => lead.id).sort());
  });

  test("a cursor of another row's list, or no cursor this API issued, is refused", async () => {
    const id = connection();
    await store.saveSnapshot(id, snapshotOf("2026-03-31T12:00:00.000Z", [{ id: "a", user: "u1" }, { id: "b", user: "u1" }, { id: "c", user: "u2" }]));
    const page = await store.listIds(id, { kind: "user", id: "u1" }, "leads", { limit: 1, cursor: null });
    expect(page.ids).toEqual(["a"]);
    await rejectedWith(store.listIds(id, { kind: "user", id: "u2" }, "leads", { limit: 1, cursor: page.nextCursor }), InvalidCursorError);
    await rejectedWith(store.listIds(id, { kind: "user", id: "u1" }, "leads", { limit: 1, cursor: "not-a-cursor" }), InvalidCursorError);
    expect((await store.listIds(id, { kind: "user", id: "u1" }, "leads", { limit: 1, cursor: page.nextCursor })).ids).toEqual(["b"]);
  });

  test("a source user id at the spec's limit in its longest UTF-8 form keys its row and its link (hashed into the sort key)", async () => {
    const id = connection();
    const longest = "𝒰".repeat(TEXT_LIMITS.id);
    expect(utf8Bytes(longest)).toBeGreaterThan(SORT_KEY_MAX_BYTES - 10);
    await store.saveSnapshot(id, snapshotOf("2026-03-31T12:00:00.000Z", [{ id: "a", user: longest }], [longest]));
    expect((await store.getRows(id))[0]!.key).toEqual({ kind: "user", id: longest });
    expect((await store.listIds(id, { kind: "user", id: longest }, "leads", { limit: 10, cursor: null })).ids).toEqual(["a"]);
    await store.setLink(id, longest, longest, "t");
    expect(await store.listLinks(id)).toEqual([{ sourceUserId: longest, memberId: longest, at: "t" }]);
  });
});

describe("links", () => {
  test("a member has one source user per connection: linking them elsewhere moves them; unlink sticks; automatic forgets the decision", async () => {
    const id = connection();
    await store.setLink(id, "u1", "m1", "t1");
    await store.setLink(id, "u2", "m1", "t2");
    expect(await store.listLinks(id)).toEqual([{ sourceUserId: "u2", memberId: "m1", at: "t2" }]);
    await store.setLink(id, "u2", null, "t3");
    expect(await store.listLinks(id)).toEqual([{ sourceUserId: "u2", memberId: null, at: "t3" }]);
    // The member is free again: linking them to u1 needs no undo of u2's unlink.
    await store.setLink(id, "u1", "m1", "t4");
    await store.setLink(id, "u2", "automatic", "t5");
    expect(await store.listLinks(id)).toEqual([{ sourceUserId: "u1", memberId: "m1", at: "t4" }]);
    // The same member on another connection is another link.
    const other = connection();
    await store.setLink(other, "u9", "m1", "t6");
    expect((await store.listLinks(id)).map((link) => link.memberId)).toEqual(["m1"]);
  });

  test("a change that meets another change made meanwhile is refused whole (LinkChangedError), and the other change stands", async () => {
    const id = connection();
    await store.setLink(id, "u1", "m1", "t1");
    const racing = store;
    const name = "race-a-link";
    table.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "TransactWriteItemsCommand" && table.client.middlewareStack.remove(name)) {
          // Between this change's reads and its write, another owner links m2 to u1.
          await racing.setLink(id, "u1", "m2", "t-race");
        }
        return next(args);
      },
      { step: "initialize", name },
    );
    await rejectedWith(store.setLink(id, "u1", "m3", "t2"), LinkChangedError);
    expect(await store.listLinks(id)).toEqual([{ sourceUserId: "u1", memberId: "m2", at: "t-race" }]);
  });
});

describe("members seen", () => {
  test("an email names the first member seen with it; a member whose email changes gives the old one up", async () => {
    const account = `acct-members-${(next += 1)}`;
    await store.recordMember(account, "m1", "anna@example.com");
    await store.recordMember(account, "m2", "anna@example.com");
    expect(await store.membersByEmail(account)).toEqual(new Map([["anna@example.com", "m1"]]));
    await store.recordMember(account, "m1", "anna.smith@example.com");
    expect(await store.membersByEmail(account)).toEqual(new Map([["anna.smith@example.com", "m1"]]));
    await store.recordMember(account, "m2", "anna@example.com");
    expect(await store.membersByEmail(account)).toEqual(new Map([["anna.smith@example.com", "m1"], ["anna@example.com", "m2"]]));
  });
});
