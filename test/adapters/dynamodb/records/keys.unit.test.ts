import { describe, expect, test } from "vitest";
import { partPartitionKey, recordPartitionKey, recordShard } from "../../../../lambdas/adapters/dynamodb/records/keys";

// Stored items sit under these keys: a change of the hash (or of its input's encoding) would orphan every record.
describe("record key layout", () => {
  test("a record's shard is the first 32 bits of sha256 of its sort key (UTF-8), mod 64: pinned values", () => {
    expect(recordShard("leads", "lead-1")).toBe(6);
    expect(recordShard("contacts", "contact-2796")).toBe(63);
    expect(recordShard("leads", "ünïcødé-id-☃")).toBe(43);
    expect(recordPartitionKey("c1", "leads", "lead-1")).toBe("REC#c1#leads#06");
    // The small full lists are one shard whatever the hash says.
    expect(recordShard("users", "contact-2796")).toBe(0);
  });

  test("a record's part partition is keyed by the base64url sha256 of its sort key: pinned values", () => {
    expect(partPartitionKey("c1", "leads", "lead-1")).toBe("PART#c1#leads#8sMXxpr5mWlBV2qBEROu5d6hHYsHY7eFqmE-h0qAoC0");
    expect(partPartitionKey("c1", "leads", "ünïcødé-id-☃")).toBe("PART#c1#leads#99lqK5Qe1dJu3x8Q2poKyE1OkDyq_XDcbRrKeaTOcVo");
  });
});
