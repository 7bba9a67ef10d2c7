import { Metrics as PowertoolsMetrics } from "@aws-lambda-powertools/metrics";
import { afterEach, expect, test, vi } from "vitest";
import { EmfMetrics } from "../../../lambdas/adapters/aws/emf-metrics";
import { METRIC } from "../../../lambdas/domain/core/metric-names";

/** Powertools writes each EMF document as one JSON line on stdout; Lambda ships it to CloudWatch Logs, which extracts the metric. */
function captureStdout(): { lines: () => Record<string, any>[]; warnings: string[] } {
  const written: string[] = [];
  const warnings: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    warnings.push(String(chunk));
    return true;
  });
  return { lines: () => written.join("").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as Record<string, any>), warnings };
}

afterEach(() => {
  vi.restoreAllMocks();
});

test("EMF shape: one count is one EMF line with namespace, Count unit, the service dimension and up to three dimension sets (total, fault, entity and error class)", () => {
  const stdout = captureStdout();
  const metrics = new EmfMetrics(new PowertoolsMetrics({ namespace: "CrmIntegration/Test", serviceName: "crm-integration" }));

  metrics.count(METRIC.entityFailures, 1, { entity: "leads", error_class: "StoreUnavailableError", fault: "ours" });

  const lines = stdout.lines();
  // One line, and no warning from Powertools (a key repeated across dimension sets would print one).
  expect(lines).toHaveLength(1);
  expect(stdout.warnings).toEqual([]);
  const [emf] = lines;
  expect(emf).toMatchObject({
    _aws: {
      Timestamp: expect.any(Number),
      CloudWatchMetrics: [
        {
          Namespace: "CrmIntegration/Test",
          Dimensions: [["service"], ["service", "fault"], ["service", "entity", "error_class"]],
          Metrics: [{ Name: "EntityFailures", Unit: "Count" }],
        },
      ],
    },
    service: "crm-integration",
    entity: "leads",
    error_class: "StoreUnavailableError",
    fault: "ours",
    EntityFailures: 1,
  });
});

test("EMF shape: a count without a fault has no fault set; one without dimensions is published under the service alone", () => {
  const stdout = captureStdout();
  const metrics = new EmfMetrics(new PowertoolsMetrics({ namespace: "CrmIntegration/Test", serviceName: "crm-integration" }));

  metrics.count(METRIC.recordsSynced, 100, { entity: "leads" });
  metrics.count(METRIC.runsSucceeded, 1);

  const [records, runs] = stdout.lines();
  expect(records!._aws.CloudWatchMetrics[0].Dimensions).toEqual([["service"], ["service", "entity"]]);
  expect(records!.RecordsSynced).toBe(100);
  expect(runs!._aws.CloudWatchMetrics[0].Dimensions).toEqual([["service"]]);
  expect(runs!.RunsSucceeded).toBe(1);
  // No id of a connection, run or account can be a dimension: the port's type has no such key.
  for (const line of [records!, runs!]) expect(line).not.toHaveProperty("run_id");
});
