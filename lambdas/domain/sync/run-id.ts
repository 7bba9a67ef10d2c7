import { randomBytes } from "node:crypto";
import { AUDIT_ID_PREFIX } from "../core/run-mode";

/** Time-sortable run id (newest sorts last), e.g. `20261121T161800123Z-9f2c1a`. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:.]/g, "");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** Time-sortable audit id: the run id's form after AUDIT_ID_PREFIX, e.g. `audit-20261121T161800123Z-9f2c1a`. */
export function newAuditId(now: Date): string {
  return `${AUDIT_ID_PREFIX}${newRunId(now)}`;
}
