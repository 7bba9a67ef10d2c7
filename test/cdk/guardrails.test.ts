import { describe, expect, test } from "vitest";
import { PAGE_TASKS_PER_EXECUTION } from "../../lambdas/domain/core/limits";
import { loadSyncDefinition, loadSyncPagesDefinition } from "../../statemachine/sync-definition";
import { readFileSync } from "node:fs";
import { CONTEXT_DEFAULTS, reservedConcurrencyOf } from "../../lib/deploy-config";
import { OPENAPI_CONCURRENCY } from "../../lib/onboarding-api";
import { LIVE_ALIAS } from "../../lib/service-function";
import { SYNC_TASKS, type SyncTaskName } from "../../lib/sync-functions";
import { actionsOf, functionId, logicalId, resourcesOf, roleStatements, serviceFunctions, synthesize, TEST_CONTEXT } from "./stack-fixture";

interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  BackoffRate?: number;
  MaxAttempts?: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: string;
}
interface State {
  Type: string;
  Resource?: string;
  TimeoutSeconds?: number;
  Retry?: Retrier[];
}

const { stack, template } = synthesize();
const functions = serviceFunctions(stack);
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
type Definition = { TimeoutSeconds?: number; States: Record<string, State> };
/** The Standard parent and the Express page loop, whose five Tasks are the Lambdas. */
const definition = loadSyncDefinition() as Definition;
const pages = loadSyncPagesDefinition() as Definition;
const lambdaTasks = Object.entries(pages.States).filter(([, state]) => state.Type === "Task" && state.Resource?.startsWith("${"));
/** A Lambda Task state's function, by its placeholder. */
const taskFunction = (state: State) => {
  const name = (Object.keys(SYNC_TASKS) as SyncTaskName[]).find((task) => state.Resource === `\${${SYNC_TASKS[task].placeholder}}`);
  return stack.syncFunctions.tasks[name!];
};
const lambdaTimeout = (state: State): number => resources[functionId(taskFunction(state))]!.Properties.Timeout as number;
const aliasOf = (name: string) => ({ Ref: logicalId(functions[name]!.alias) });

/** aws-local-stepfunctions' Task deadline when a state sets none (lambdas/runtimes/local/step-functions/engine-worker.ts). */
const LOCAL_ENGINE_DEFAULT_TASK_TIMEOUT_SECONDS = 60;

/** The errors that mean "Lambda, DynamoDB or the limiter is briefly overloaded", not a failed page. */
const THROTTLING_ERRORS = ["Lambda.TooManyRequestsException", "Lambda.ServiceException", "StoreUnavailableError"];

/** Capped waits before each retry, as Step Functions computes them: min(IntervalSeconds × BackoffRate^n, MaxDelaySeconds). */
const cappedWaits = (retrier: Retrier) =>
  Array.from({ length: retrier.MaxAttempts ?? 3 }, (_, n) =>
    Math.min((retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** n, retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY),
  );
/** Step Functions' hard limit on an Express execution. */
const EXPRESS_MAX_SECONDS = 300;
/** ReservedConcurrentExecutions over every function of a template. */
const reservedSum = (all: Record<string, { Type: string; Properties: Record<string, any> }>): number =>
  Object.values(all)
    .filter((resource) => resource.Type === "AWS::Lambda::Function")
    .reduce((sum, resource) => sum + ((resource.Properties.ReservedConcurrentExecutions as number | undefined) ?? 0), 0);
const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));

describe("guardrails: reserved concurrency", () => {
  test("reserved concurrency: the page task and each API function have theirs, from context (defaults in cdk.json); the other functions share the pool", () => {
    const reserved = (name: string) => resources[functionId(functions[name]!)]!.Properties.ReservedConcurrentExecutions;
    expect(reserved("SyncPage")).toBe(CONTEXT_DEFAULTS.pageTaskConcurrency);
    expect(reserved("Api")).toBe(CONTEXT_DEFAULTS.apiConcurrency);
    expect(reserved("TestConnectionApi")).toBe(CONTEXT_DEFAULTS.apiConcurrency);
    expect(reserved("OpenApi")).toBe(OPENAPI_CONCURRENCY);
    for (const name of ["BeginRun", "EntityFailed", "StopRun", "FinishRun", "Dispatcher"]) expect(reserved(name), name).toBeUndefined();

    const { stack: other, template: changed } = synthesize({ ...TEST_CONTEXT, pageTaskConcurrency: "50", maxConcurrentRuns: "50", apiConcurrency: 7 });
    const props = changed.toJSON().Resources as Record<string, { Properties: Record<string, any> }>;
    expect(props[functionId(other.syncFunctions.tasks.SyncPage)]!.Properties.ReservedConcurrentExecutions).toBe(50);
    expect(props[functionId(other.api.apiFunction)]!.Properties.ReservedConcurrentExecutions).toBe(7);
  });

  // https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html: Lambda keeps 100 of the account's
  // concurrency unreserved, so an account at the default quota of 1,000 may reserve at most 900.
  test("reserved concurrency fits the account: the stack's reservations together are at most the account's quota less 100, and more fails synth with one message naming the settings", () => {
    const tooMuch = { ...TEST_CONTEXT, pageTaskConcurrency: 800, apiConcurrency: 100 };
    expect(() => synthesize(tooMuch)).toThrow(
      /pageTaskConcurrency \(800\) \+ 3 × apiConcurrency \(100\) \+ 6 .*reserve 1,106.*accountConcurrency \(1,000\).*at most 900/,
    );
    // 800 + 3 × 31 + 6 = 899 fits; one more per API function does not.
    expect(() => synthesize({ ...TEST_CONTEXT, pageTaskConcurrency: 800, apiConcurrency: 32 })).toThrow(/reserve 902/);
    const { template: fits } = synthesize({ ...TEST_CONTEXT, pageTaskConcurrency: 800, apiConcurrency: 31 });
    expect(reservedSum(fits.toJSON().Resources)).toBe(899);
    // An account whose quota was raised says so: the same settings fit.
    expect(() => synthesize({ ...tooMuch, accountConcurrency: 2000 })).not.toThrow();
  });

  test("reserved concurrency: the defaults' figure in docs/operations.md is the template's sum over every function", () => {
    const sum = reservedSum(resources);
    expect(sum).toBe(reservedConcurrencyOf(CONTEXT_DEFAULTS).total);
    const documented = /the defaults reserve ([\d,]+)/.exec(readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8"))?.[1];
    expect(documented?.replace(/,/g, "")).toBe(String(sum));
  });

  test.each([
    [{ pageTaskConcurrency: 0 }, /pageTaskConcurrency must be from 1 to 800/],
    [{ pageTaskConcurrency: 5000 }, /pageTaskConcurrency must be from 1 to 800/],
    [{ pageTaskConcurrency: "many" }, /pageTaskConcurrency must be a whole number/],
    [{ apiConcurrency: 2.5 }, /apiConcurrency must be a whole number/],
    [{ apiThrottleRate: 100, apiThrottleBurst: 10 }, /apiThrottleBurst \(10\) must be at least apiThrottleRate \(100\)/],
    [{ noSuccessAlarmHours: 48 }, /noSuccessAlarmHours must be from 1 to 24/],
  ])("a bad guardrail value fails synth naming the key: %j", (bad, message) => {
    expect(() => synthesize({ ...TEST_CONTEXT, ...bad })).toThrow(message);
  });
});

describe("guardrails: the live alias", () => {
  test("every function has a `live` alias on its published version", () => {
    const aliases = Object.values(resources).filter((resource) => resource.Type === "AWS::Lambda::Alias");
    expect(aliases).toHaveLength(Object.keys(functions).length);
    for (const [name, fn] of Object.entries(functions)) {
      const alias = resources[logicalId(fn.alias)]!;
      expect(alias.Properties.Name, name).toBe(LIVE_ALIAS);
      expect(alias.Properties.FunctionName, name).toEqual({ Ref: functionId(fn) });
      const version = alias.Properties.FunctionVersion["Fn::GetAtt"] as [string, string];
      expect(resources[version[0]]!.Type, name).toBe("AWS::Lambda::Version");
      expect(resources[version[0]]!.Properties.FunctionName, name).toEqual({ Ref: functionId(fn) });
    }
  });

  test("a deploy never swaps code under a running page: the Task states, the API routes and the schedule invoke the alias, never the function", () => {
    const stateMachine = resources[logicalId(stack.syncStateMachine.pagesStateMachine)]!;
    const substitutions = stateMachine.Properties.DefinitionSubstitutions as Record<string, unknown>;
    for (const name of Object.keys(SYNC_TASKS) as SyncTaskName[]) expect(substitutions[SYNC_TASKS[name].placeholder], name).toEqual(aliasOf(name));

    const invoke = roleStatements(template, logicalId(stack.syncStateMachine.pagesStateMachine.role)).filter((statement) => actionsOf(statement).includes("lambda:InvokeFunction"));
    const taskAliases = (Object.keys(SYNC_TASKS) as SyncTaskName[]).map(aliasOf);
    expect(resourcesOf(invoke[0]!)).toEqual(expect.arrayContaining(taskAliases));
    expect(resourcesOf(invoke[0]!)).toHaveLength(taskAliases.length);

    const integrations = Object.values(resources).filter((resource) => resource.Type === "AWS::ApiGatewayV2::Integration");
    expect(integrations.map((integration) => integration.Properties.IntegrationUri)).toEqual(expect.arrayContaining(["Api", "OpenApi", "TestConnectionApi"].map(aliasOf)));
    expect(integrations).toHaveLength(3);
    const rule = resources[logicalId(stack.syncSchedule.rule)]!;
    expect(rule.Properties.Targets[0].Arn).toEqual({ Ref: logicalId(stack.syncSchedule.stateMachine) });
    for (const permission of Object.values(resources).filter((resource) => resource.Type === "AWS::Lambda::Permission")) {
      expect(Object.keys(functions).map(aliasOf)).toContainEqual(permission.Properties.FunctionName);
    }
  });
});

describe("guardrails: timeouts", () => {
  test("every Task state has TimeoutSeconds above its Lambda's timeout, and no lower than the local engine's 60 s default", () => {
    const tasks = [...Object.entries(definition.States), ...Object.entries(pages.States)].filter(([, state]) => state.Type === "Task");
    expect(tasks.length).toBe(7);
    for (const [name, state] of tasks) {
      expect(state.TimeoutSeconds, name).toBeGreaterThanOrEqual(LOCAL_ENGINE_DEFAULT_TASK_TIMEOUT_SECONDS);
    }
    for (const [name, state] of lambdaTasks) expect(state.TimeoutSeconds!, name).toBeGreaterThan(lambdaTimeout(state));
  });

  test("executions have TimeoutSeconds that leaves each of an execution's page tasks its whole Task timeout", () => {
    const fetchPage = pages.States["SyncPage"]!;
    expect(definition.TimeoutSeconds).toBeDefined();
    expect(definition.TimeoutSeconds!).toBeGreaterThanOrEqual(PAGE_TASKS_PER_EXECUTION * fetchPage.TimeoutSeconds!);
    // Step Functions' Standard maximum is a year; a stuck run should be found the next day.
    expect(definition.TimeoutSeconds!).toBeLessThanOrEqual(24 * 60 * 60);
    // Express runs 5 minutes at most; a segment always has room for a whole page task.
    expect(pages.TimeoutSeconds).toBeLessThanOrEqual(EXPRESS_MAX_SECONDS);
    expect(pages.TimeoutSeconds!).toBeGreaterThan(fetchPage.TimeoutSeconds!);
  });

  test("the parent never gives up on a segment that may still run: RunPages waits longer than the Express child can live, so its retry never overlaps it", () => {
    const runPages = definition.States["RunPages"]!;
    expect(runPages.Resource).toBe("arn:aws:states:::states:startExecution.sync:2");
    expect(runPages.TimeoutSeconds!).toBeGreaterThan(pages.TimeoutSeconds!);
    expect(runPages.TimeoutSeconds!).toBeGreaterThan(EXPRESS_MAX_SECONDS);
  });
});

describe("guardrails: throttling retries", () => {
  const throttleRetriers = lambdaTasks.map(([name, state]) => {
    const retrier = state.Retry?.find((candidate) => candidate.ErrorEquals.includes("Lambda.TooManyRequestsException"));
    return [name, retrier] as const;
  });

  test("every Lambda Task retries Lambda's and the store's throttling (and the limiter's stale slots on SyncPage) with full jitter", () => {
    expect(throttleRetriers).toHaveLength(5);
    for (const [name, retrier] of throttleRetriers) {
      expect(retrier, name).toBeDefined();
      expect(retrier!.ErrorEquals, name).toEqual(expect.arrayContaining(THROTTLING_ERRORS));
      expect(retrier!.JitterStrategy, name).toBe("FULL");
      expect(retrier!.MaxDelaySeconds, name).toBeDefined();
    }
    expect(throttleRetriers.find(([name]) => name === "SyncPage")![1]!.ErrorEquals).toContain("RateLimitSlotsStaleError");
  });

  // "Error handling": the child's retriers add at most 240 s to a Task (Express runs 5 minutes), then the segment fails
  // and RunPages waits in the Standard parent before running it again, up to its MaxAttempts, then the entity fails.
  test("throttling never fails an entity in its first minute: over the child's retries and RunPages' (the parent's waits between segments), the chance that all jittered waits add up to under 60 s is below one in a billion, and on average they span minutes", () => {
    const runPages = definition.States["RunPages"]!.Retry!.find((retrier) => retrier.ErrorEquals.includes("States.ALL"))!;
    for (const [name, retrier] of throttleRetriers) {
      const segments = (runPages.MaxAttempts ?? 3) + 1;
      const waits = [...Array.from({ length: segments }, () => cappedWaits(retrier!)).flat(), ...cappedWaits(runPages)];
      // Full jitter waits a uniform time in [0, cap]. The k waits capped at 60 s or more alone sum below 60 s with
      // probability at most (60^k / k!) / (their caps' product), the volume of a simplex in their box.
      const long = waits.filter((wait) => wait >= 60);
      const chance = long.reduce((product, wait) => product * (60 / wait), 1) / factorial(long.length);
      expect(chance, name).toBeLessThan(1e-9);
      const expected = waits.reduce((sum, wait) => sum + wait / 2, 0);
      expect(expected, `${name}: mean total wait`).toBeGreaterThanOrEqual(5 * 60);
      // And it ends: the longest possible total is bounded (the page's lease is renewed by the next page, not by waiting).
      expect(waits.reduce((sum, wait) => sum + wait, 0), `${name}: longest total wait`).toBeLessThanOrEqual(20 * 60);
    }
  });

  test("the spec's source retries are untouched: SourceTransientError 1, 2, 4, 8, 16 s, no jitter, no cap", () => {
    const transient = pages.States["SyncPage"]!.Retry!.find((retrier) => retrier.ErrorEquals.includes("SourceTransientError"))!;
    expect(transient.ErrorEquals).toEqual(["SourceTransientError"]);
    expect(cappedWaits(transient)).toEqual([1, 2, 4, 8, 16]);
    expect(transient.JitterStrategy).toBe("NONE");
    expect(transient.MaxDelaySeconds).toBeUndefined();
  });
});
