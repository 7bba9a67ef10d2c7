import { describe, expect, test } from "vitest";
import { ApiConfigSchema, ConfigurationError, readConfig, SyncTaskConfigSchema } from "../../../lambdas/runtimes/aws/aws-config";
import { awsManagerRefreshDeps, awsOnboardingDeps, awsPreflightJobDeps, awsSyncDeps, awsWebhookDeliveryDeps } from "../../../lambdas/runtimes/aws/aws-composition";

describe("Lambda configuration", () => {
  test("is parsed once from the environment; ALLOW_LOOPBACK_SOURCES is off unless set to true", () => {
    expect(readConfig(SyncTaskConfigSchema, { TABLE_NAME: "t", KMS_KEY_ID: "k" })).toEqual({
      TABLE_NAME: "t",
      KMS_KEY_ID: "k",
      ALLOW_LOOPBACK_SOURCES: false,
      FETCH_AHEAD: true,
    });
    expect(readConfig(SyncTaskConfigSchema, { TABLE_NAME: "t", KMS_KEY_ID: "k", ALLOW_LOOPBACK_SOURCES: "true" }).ALLOW_LOOPBACK_SOURCES).toBe(true);
  });

  test("fetch ahead is on by default (docs/throughput.md#fetch-ahead): FETCH_AHEAD=false turns it off, and any other value fails the cold start naming it", () => {
    const base = { TABLE_NAME: "t", KMS_KEY_ID: "k" };
    expect(readConfig(SyncTaskConfigSchema, base).FETCH_AHEAD).toBe(true);
    expect(readConfig(SyncTaskConfigSchema, { ...base, FETCH_AHEAD: "true" }).FETCH_AHEAD).toBe(true);
    expect(readConfig(SyncTaskConfigSchema, { ...base, FETCH_AHEAD: "false" }).FETCH_AHEAD).toBe(false);
    for (const bad of ["", "0", "no", "off", "FALSE", "False", " false", "false ", "1"]) {
      expect(() => readConfig(SyncTaskConfigSchema, { ...base, FETCH_AHEAD: bad }), JSON.stringify(bad)).toThrow(/FETCH_AHEAD must be true or false/);
    }
    // The page task's deps carry it as read.
    expect(awsSyncDeps(base).fetchAhead).toBe(true);
    expect(awsSyncDeps({ ...base, FETCH_AHEAD: "false" }).fetchAhead).toBe(false);
    expect(() => awsSyncDeps({ ...base, FETCH_AHEAD: "off" })).toThrow(ConfigurationError);
  });

  test("the webhook delivery function's deps build without calling AWS, and its config names what is missing", () => {
    expect(() => awsWebhookDeliveryDeps({ TABLE_NAME: "t" })).toThrow(/KMS_KEY_ID is required/);
    expect(Object.keys(awsWebhookDeliveryDeps({ TABLE_NAME: "t", KMS_KEY_ID: "k" })).sort()).toEqual(["changes", "cipher", "clock", "logger", "sender", "webhooks"]);
  });

  test("a missing value fails fast, naming it", () => {
    expect(() => readConfig(ApiConfigSchema, { TABLE_NAME: "t", KMS_KEY_ID: "k" })).toThrow(ConfigurationError);
    expect(() => readConfig(ApiConfigSchema, { TABLE_NAME: "t", KMS_KEY_ID: "k" })).toThrow(/STATE_MACHINE_ARN is required/);
    expect(() => awsSyncDeps({ KMS_KEY_ID: "k" })).toThrow(/TABLE_NAME is required/);
  });

  test("the composition roots build their adapters without calling AWS", () => {
    const deps = awsOnboardingDeps({
      TABLE_NAME: "t",
      KMS_KEY_ID: "k",
      STATE_MACHINE_ARN: "arn:aws:states:eu-west-1:1:stateMachine:s",
      PREFLIGHT_FUNCTION_NAME: "arn:aws:lambda:eu-west-1:1:function:preflight:live",
    });
    // The cloud setting: a base_url that reaches loopback is refused.
    expect(deps.baseUrls.check("http://127.0.0.1:8080/").ok).toBe(false);
    expect(Object.keys(deps).sort()).toEqual(
      ["audits", "baseUrls", "changes", "cipher", "clock", "connections", "figures", "history", "keySpace", "limiter", "logger", "managers", "notifications", "preflightLauncher", "preflights", "records", "runs", "source", "starter", "webhooks", "webhookUrls"].sort(),
    );
    // The cloud setting for webhook endpoints: https only, loopback refused.
    expect(deps.webhookUrls.check("http://hooks.example.com/in")).toEqual({ ok: false, rule: "url must be an https URL" });
    expect(deps.webhookUrls.check("https://127.0.0.1/in").ok).toBe(false);
    expect(deps.webhookUrls.check("https://hooks.example.com/in")).toEqual({ ok: true, url: "https://hooks.example.com/in" });
    // The deploy's syncSchedule reaches each connection's `schedule` in AWS too (null when the variable is absent).
    const scheduled = awsOnboardingDeps({
      TABLE_NAME: "t",
      KMS_KEY_ID: "k",
      STATE_MACHINE_ARN: "arn:aws:states:eu-west-1:1:stateMachine:s",
      PREFLIGHT_FUNCTION_NAME: "arn:aws:lambda:eu-west-1:1:function:preflight:live",
      SYNC_SCHEDULE: "rate(2 hours)",
    });
    expect(scheduled.schedule).toBe("rate(2 hours)");
    expect(deps.schedule).toBeUndefined();
    // Only FinishRun is given the refresh function (lib/sync-functions.ts): the other tasks ask for no refresh.
    expect(awsSyncDeps({ TABLE_NAME: "t", KMS_KEY_ID: "k" }).managerRefresher).toBeUndefined();
    expect(awsSyncDeps({ TABLE_NAME: "t", KMS_KEY_ID: "k", MANAGER_REFRESH_FUNCTION_NAME: "arn:aws:lambda:eu-west-1:1:function:refresh:live" }).managerRefresher).toBeDefined();
    expect(Object.keys(awsManagerRefreshDeps({ TABLE_NAME: "t" })).sort()).toEqual(["clock", "logger", "managers", "scan"]);
    const worker = awsPreflightJobDeps({ TABLE_NAME: "t", KMS_KEY_ID: "k" });
    expect(Object.keys(worker).sort()).toEqual(["cipher", "clock", "connections", "limiter", "logger", "preflights", "sourceFetch"].sort());
  });
});
