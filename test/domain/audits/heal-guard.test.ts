import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { DynamoDbAuditStore } from "../../../lambdas/adapters/dynamodb/audits/dynamodb-audit-store";
import { StoredVersionNewerError } from "../../../lambdas/domain/core/errors";
import type { RecordWrite } from "../../../lambdas/domain/core/ports/record-store";
import { DynamoDbRunStore } from "../../../lambdas/adapters/dynamodb/runs/dynamodb-run-store";
import { DynamoDbRecordStore } from "../../../lambdas/adapters/dynamodb/records/dynamodb-record-store";
import { runHoldingLock } from "../../builders/page-runs";
import { rejectedWith } from "../../support/rejected-with";
import { useTestTable } from "../../support/dynamodb";

const table = useTestTable();
const records = new DynamoDbRecordStore(table);
const audits = new DynamoDbAuditStore(table);
const runs = new DynamoDbRunStore(table);

const contact = (updatedAt: string, phone: string): RecordWrite => ({
  collection: "contacts",
  key: ["contact-1"],
  doc: { id: "contact-1", name: "Ada", phone, created_at: "2026-01-01T00:00:00.000Z", updated_at: updatedAt },
});
const heal = (auditId: string, cause: "missed" | "stale" | "changed_without_advancing") => ({ auditId, cause, updatedAt: null, watermark: null, at: "2026-05-01T00:00:00.000Z" });

describe("the heal guard", () => {
  test("an audit never overwrites a newer stored version: the guarded Put refuses it and the page writes nothing", async () => {
    const connectionId = `conn-${randomUUID()}`;
    const auditId = `audit-20260501T000000000Z-${randomUUID().slice(0, 6)}`;
    const run = await runHoldingLock(runs, connectionId, auditId);
    await records.commitPage(run.page({ connectionId, records: [contact("2026-03-03T00:00:00.000Z", "+3")] }, "contacts"));

    // The audit compared with an older stored version (a write landed in between): its heal must not win.
    const older = { ...contact("2026-03-02T00:00:00.000Z", "+2"), heal: heal(auditId, "stale") };
    const other = { collection: "contacts" as const, key: ["contact-2"] as const, doc: { id: "contact-2", updated_at: "2026-03-01T00:00:00.000Z" }, heal: heal(auditId, "missed") };
    await rejectedWith(records.commitPage(run.page({ connectionId, records: [other, older] }, "contacts")), StoredVersionNewerError);
    const stored = await audits.storedVersions(connectionId, "contacts", ["contact-1", "contact-2"]);
    expect(JSON.parse(stored.get("contact-1")!.doc)).toMatchObject({ phone: "+3" });
    expect(stored.has("contact-2")).toBe(false);

    // Not newer (same time, other content): written, with its heal mark.
    await records.commitPage(run.page({ connectionId, records: [{ ...contact("2026-03-03T00:00:00.000Z", "+4"), heal: heal(auditId, "changed_without_advancing") }] }, "contacts"));
    const healed = (await audits.storedVersions(connectionId, "contacts", ["contact-1"])).get("contact-1")!;
    expect(JSON.parse(healed.doc)).toMatchObject({ phone: "+4" });
    expect(healed.healedBy).toEqual({ auditId, cause: "changed_without_advancing" });
  });
});
