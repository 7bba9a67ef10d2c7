import { describe, expect, test } from "vitest";
import { createMemoryLogger } from "../../../lambdas/adapters/local/json-logger";
import type { ManagerRefresher } from "../../../lambdas/domain/core/ports/manager-refresher";
import { requestManagerRefresh } from "../../../lambdas/domain/sync/manager-refresh-request";
import { newAuditId, newRunId } from "../../../lambdas/domain/sync/run-id";

const AT = new Date("2026-03-31T12:00:00.000Z");

/** A refresher that keeps what it was asked, or refuses (Lambda throttled, the function gone). */
function refresher(refuse?: Error): ManagerRefresher & { readonly jobs: Parameters<ManagerRefresher["request"]>[0][] } {
  const jobs: Parameters<ManagerRefresher["request"]>[0][] = [];
  return {
    jobs,
    request: async (job) => {
      if (refuse !== undefined) throw refuse;
      jobs.push(job);
    },
  };
}

describe("a run's end asks for the per-manager figures", () => {
  test("a sync's end asks without force (the refresh skips a run that wrote nothing); an audit's end forces it (its heals move no watermark)", async () => {
    const managerRefresher = refresher();
    const logger = createMemoryLogger();
    await requestManagerRefresh({ managerRefresher, logger }, { connection_id: "c1", run_id: newRunId(AT) });
    await requestManagerRefresh({ managerRefresher, logger }, { connection_id: "c1", run_id: newAuditId(AT) });
    expect(managerRefresher.jobs).toEqual([{ connectionId: "c1", force: false }, { connectionId: "c1", force: true }]);
  });

  test("a refresh that cannot be asked for never fails the run: it is logged by its error's name, and the call returns", async () => {
    const logger = createMemoryLogger();
    const refused = Object.assign(new Error("Rate exceeded for token-abc-secret"), { name: "TooManyRequestsException" });
    await expect(requestManagerRefresh({ managerRefresher: refresher(refused), logger }, { connection_id: "c1", run_id: newRunId(AT) })).resolves.toBeUndefined();
    expect(logger.lines).toEqual([expect.objectContaining({ message: "manager figures refresh not requested", connection_id: "c1", error: "TooManyRequestsException" })]);
    // Only the name: an SDK message could carry anything.
    expect(JSON.stringify(logger.lines)).not.toContain("secret");
  });

  test("without a refresher (every sync function but FinishRun's) nothing is asked and nothing logged", async () => {
    const logger = createMemoryLogger();
    await requestManagerRefresh({ logger }, { connection_id: "c1", run_id: newRunId(AT) });
    expect(logger.lines).toEqual([]);
  });
});
