import { randomBytes } from "node:crypto";

/** Time-sortable run id (newest sorts last), e.g. `20261121T161800123Z-9f2c1a`. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:.]/g, "");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}
