import { describe, expect, test } from "vitest";
import { SYNC_ENTITIES } from "../../../lambdas/domain/core/entities";
import { AUDIT_ENTITIES, pageKindOf } from "../../../lambdas/domain/core/run-mode";
import { newAuditId, newRunId } from "../../../lambdas/domain/sync/run-id";

const SYNC_RUN = newRunId(new Date("2026-06-01T00:00:00.000Z"));
const AUDIT_RUN = newAuditId(new Date("2026-06-01T00:00:00.000Z"));

describe("a page's kind is decided once, from its run, as a value", () => {
  test("every page of a sync run is a sync's page, of any entity", () => {
    for (const entity of SYNC_ENTITIES) expect(pageKindOf(SYNC_RUN, entity)).toEqual({ mode: "sync", entity });
  });

  test("a page of an audit run is an audit's page of an incremental entity", () => {
    for (const entity of AUDIT_ENTITIES) expect(pageKindOf(AUDIT_RUN, entity)).toEqual({ mode: "audit", entity });
  });

  test("an audit has no page of the entities every sync reads whole (pipelines, users): refused before any request", () => {
    expect(() => pageKindOf(AUDIT_RUN, "pipelines")).toThrow(TypeError);
    expect(() => pageKindOf(AUDIT_RUN, "users")).toThrow(/an audit has no page of users/);
  });
});
