import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, test } from "vitest";
import { DEFAULT_SCHEDULE } from "../../lambdas/domain/sync/schedule-interval";
import { CONTEXT_DEFAULTS, parseSyncSchedule, PLACEHOLDER_JWT_AUDIENCE, PLACEHOLDER_JWT_ISSUER } from "../../lib/deploy-config";
import { CDK_JSON, synthesize, TEST_CONTEXT } from "./stack-fixture";

describe("CDK context values", () => {
  test("cdk.json carries the same defaults as the code, and the schedule default is the local runtime's", () => {
    for (const [key, value] of Object.entries(CONTEXT_DEFAULTS)) expect(CDK_JSON.context[key], key).toEqual(value);
    expect(CONTEXT_DEFAULTS.syncSchedule).toBe(DEFAULT_SCHEDULE);
  });

  test("placeholder JWT settings fail synth (so cdk deploy) with a clear error naming the keys", () => {
    const message = /jwtIssuer\/jwtAudience are still the placeholders of cdk\.json: the API would reject every token/;
    expect(() => synthesize({})).toThrow(message);
    expect(() => synthesize({ ...TEST_CONTEXT, jwtIssuer: PLACEHOLDER_JWT_ISSUER })).toThrow(message);
    expect(() => synthesize({ ...TEST_CONTEXT, jwtAudience: `crm-web, ${PLACEHOLDER_JWT_AUDIENCE}` })).toThrow(message);
  });

  test("with real JWT settings and nothing else, synth takes every other default", () => {
    const { template } = synthesize({ jwtIssuer: TEST_CONTEXT.jwtIssuer, jwtAudience: TEST_CONTEXT.jwtAudience });
    template.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", { JwtConfiguration: { Issuer: TEST_CONTEXT.jwtIssuer, Audience: ["crm-web", "crm-cli"] } });
    template.hasResourceProperties("AWS::Events::Rule", { ScheduleExpression: "rate(1 hour)", State: "ENABLED", Description: Match.stringLikeRegexp("schedule tick") });
    template.allResourcesProperties("AWS::Logs::LogGroup", { RetentionInDays: 30 });
  }, 120_000);

  test("syncSchedule: the local SCHEDULE syntax in whole minutes, or an EventBridge expression as is; off deploys the rule disabled", () => {
    expect(parseSyncSchedule("1h").schedule.expressionString).toBe("rate(1 hour)");
    expect(parseSyncSchedule("30m").schedule.expressionString).toBe("rate(30 minutes)");
    expect(parseSyncSchedule("90m").schedule.expressionString).toBe("rate(90 minutes)");
    expect(parseSyncSchedule("24h").schedule.expressionString).toBe("rate(1 day)");
    expect(parseSyncSchedule("rate(2 hours)").schedule.expressionString).toBe("rate(2 hours)");
    expect(parseSyncSchedule("cron(0 3 * * ? *)").schedule.expressionString).toBe("cron(0 3 * * ? *)");
    expect(parseSyncSchedule("off").enabled).toBe(false);
    const { template } = synthesize({ ...TEST_CONTEXT, syncSchedule: "off" });
    template.hasResourceProperties("AWS::Events::Rule", { State: "DISABLED" });
    // The owner reads the schedule on each connection: the API functions get it as given.
    expect(parseSyncSchedule(" rate(2 hours) ").label).toBe("rate(2 hours)");
    template.hasResourceProperties("AWS::Lambda::Function", {
      Description: "Onboarding API: every route but the connection test",
      Environment: { Variables: Match.objectLike({ SYNC_SCHEDULE: "off" }) },
    });
  });

  test.each([
    [{ jwtIssuer: "http://idp.example.com/" }, /jwtIssuer must be an https:\/\/ URL/],
    [{ jwtIssuer: "not a url" }, /jwtIssuer must be a URL/],
    [{ jwtAudience: " , " }, /jwtAudience must name at least one client id/],
    [{ syncSchedule: "30s" }, /syncSchedule must be whole minutes/],
    [{ syncSchedule: "hourly" }, /syncSchedule must be off, an interval like 15m or 1h, or rate\(\.\.\.\)\/cron\(\.\.\.\)/],
    [{ logRetentionDays: 31 }, /logRetentionDays must be one of CloudWatch Logs' retention values/],
    [{ logRetentionDays: "thirty" }, /logRetentionDays must be a number of days/],
    [{ alarmEmail: "ops" }, /alarmEmail must be an e-mail address/],
  ])("a bad value fails synth with a message naming the key: %j", (bad, message) => {
    expect(() => synthesize({ ...TEST_CONTEXT, ...bad })).toThrow(message);
  });

  test("values given with -c arrive as strings: logRetentionDays=90 works", () => {
    const { template } = synthesize({ ...TEST_CONTEXT, logRetentionDays: "90" });
    template.allResourcesProperties("AWS::Logs::LogGroup", { RetentionInDays: 90 });
  });
});
