import { randomUUID } from "node:crypto";
import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, test } from "vitest";
import { AUDIT_ATTR, returnedPartitionKey, returnedSortKey } from "../../../../lambdas/adapters/dynamodb/audits/audit-keys";
import { DynamoDbAuditStore } from "../../../../lambdas/adapters/dynamodb/audits/dynamodb-audit-store";
import { useTestTable } from "../../../support/dynamodb";

const table = useTestTable();
const audits = new DynamoDbAuditStore(table);

const AT = "2026-05-01T00:00:00.000Z";
const WATERMARK = "2026-04-30T00:00:00.000Z";

describe("what an audit remembers of records past the watermark, for explain", () => {
  test("explain finds a record the audit saw past the watermark on any of the entity's last pages, back to the first page at or below it", async () => {
    const connectionId = `conn-${randomUUID()}`;
    const auditId = `audit-20260501T000000000Z-${randomUUID().slice(0, 6)}`;
    const remember = (page: number, ids: string[], ahead: string[], settled: boolean) =>
      audits.rememberReturned(connectionId, auditId, "leads", page, ids, AT, { ahead: ahead.map((id) => ({ id, updatedAt: `2026-04-30T0${page}:00:00.000Z` })), settled, watermark: WATERMARK });
    await remember(1, ["old-1", "old-2"], [], true);
    // Page 2 holds the last record at or below the watermark and the first past it; pages 3 and 4 only records past it, page 5 none (an empty last page).
    await remember(2, ["old-3", "new-2"], ["new-2"], true);
    await remember(3, ["new-3"], ["new-3"], false);
    await remember(4, ["new-4"], ["new-4"], false);
    await remember(5, [], [], false);
    expect(await audits.seenAhead(connectionId, auditId, "leads", "new-2")).toEqual({ auditId, updatedAt: "2026-04-30T02:00:00.000Z", watermark: WATERMARK });
    expect(await audits.seenAhead(connectionId, auditId, "leads", "new-4")).toEqual({ auditId, updatedAt: "2026-04-30T04:00:00.000Z", watermark: WATERMARK });
    expect(await audits.seenAhead(connectionId, auditId, "leads", "old-1")).toBeNull();
    // Another entity's pages, or another audit's, say nothing of it.
    expect(await audits.seenAhead(connectionId, auditId, "contacts", "new-3")).toBeNull();
    expect(await audits.seenAhead(connectionId, `${auditId}x`, "leads", "new-3")).toBeNull();
  });

  test("pages an audit kept before it remembered what was ahead end the search: nothing is claimed ahead", async () => {
    const connectionId = `conn-${randomUUID()}`;
    const auditId = `audit-20260501T000000000Z-${randomUUID().slice(0, 6)}`;
    await audits.rememberReturned(connectionId, auditId, "leads", 1, ["lead-1"], AT, { ahead: [{ id: "lead-1", updatedAt: AT }], settled: false, watermark: null });
    // A page item as an earlier release wrote it: ids only.
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { [AUDIT_ATTR.pk]: { S: returnedPartitionKey(connectionId, auditId) }, [AUDIT_ATTR.sk]: { S: returnedSortKey("leads", 2) }, [AUDIT_ATTR.ids]: { S: JSON.stringify(["lead-2"]) } },
      }),
    );
    expect(await audits.seenAhead(connectionId, auditId, "leads", "lead-1")).toBeNull();
  });
});
