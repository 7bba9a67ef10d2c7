import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, ListFunctionsCommand } from "@aws-sdk/client-lambda";
import { describe, expect, test } from "vitest";
import { checkReservedConcurrency, type LambdaSettingsClient } from "../../../bin/preflight-deploy/concurrency-check";
import { CONTEXT_DEFAULTS, reservedConcurrencyOf } from "../../../lib/deploy-config";

/**
 * Lambda's "Configuring reserved concurrency for a function": a reservation must leave 100 of the account's
 * concurrency unreserved, counted against what is unreserved now (GetAccountSettings), whatever the stack's context
 * says. No AWS here: a stand-in for the Lambda client answers as the account would and records every request.
 */
interface Account {
  readonly quota: number;
  /** Reserved concurrency by function name, every function of the account. */
  readonly reservations: Readonly<Record<string, number>>;
  /** Functions without a reservation. */
  readonly others?: readonly string[];
}

function stubLambda(account: Account, pageSize = 2) {
  const requests: Array<{ command: string; input: unknown }> = [];
  const names = [...Object.keys(account.reservations), ...(account.others ?? [])];
  const reserved = Object.values(account.reservations).reduce((sum, n) => sum + n, 0);
  const client = {
    async send(command: GetAccountSettingsCommand | ListFunctionsCommand | GetFunctionConcurrencyCommand) {
      requests.push({ command: command.constructor.name, input: command.input });
      if (command instanceof GetAccountSettingsCommand) {
        return { AccountLimit: { ConcurrentExecutions: account.quota, UnreservedConcurrentExecutions: account.quota - reserved } };
      }
      if (command instanceof ListFunctionsCommand) {
        const start = command.input.Marker === undefined ? 0 : Number(command.input.Marker);
        const next = start + pageSize;
        return { Functions: names.slice(start, next).map((FunctionName) => ({ FunctionName })), ...(next < names.length ? { NextMarker: String(next) } : {}) };
      }
      const name = command.input.FunctionName!;
      return account.reservations[name] === undefined ? {} : { ReservedConcurrentExecutions: account.reservations[name] };
    },
  };
  return { client: client as unknown as LambdaSettingsClient, requests };
}

const plan = { stackName: "CrmIntegration", ...reservedConcurrencyOf(CONTEXT_DEFAULTS) };

describe("the pre-deploy check of reserved concurrency (npm run preflight-deploy)", () => {
  test("reserved concurrency fits the account as Lambda counts it (Configuring reserved concurrency: 100 stay unreserved): a first deploy on a default account fits, and the requests are GetAccountSettings, the function list, and each of the stack's functions", async () => {
    const { client, requests } = stubLambda({ quota: 1_000, reservations: { "Billing-Worker-1A2B": 50 }, others: ["CrmIntegrationTools-x", "Reports"] });
    const verdict = await checkReservedConcurrency(client, plan);
    expect(plan.total).toBe(266);
    expect(verdict).toMatchObject({ fits: true, quota: 1_000, unreserved: 950, ownToday: 0, reservable: 850 });
    expect(requests).toEqual([
      { command: "GetAccountSettingsCommand", input: {} },
      { command: "ListFunctionsCommand", input: {} },
      { command: "ListFunctionsCommand", input: { Marker: "2" } },
    ]);
  });

  test("reserved concurrency counts other stacks' reservations (a second copy of this service): the synth's offline check passes, this one fails with one message naming the figures and the fix", async () => {
    const { client } = stubLambda({ quota: 1_000, reservations: { "CrmIntegrationCopy-SyncPage-9Z": 200, "CrmIntegrationCopy-Api-8Y": 20, "CrmIntegrationCopy-Purge-7X": 500 } });
    const verdict = await checkReservedConcurrency(client, plan);
    // The context's accountConcurrency (1,000) leaves 900 reservable for the synth; the account leaves 180.
    expect(plan.total).toBeLessThanOrEqual(CONTEXT_DEFAULTS.accountConcurrency - 100);
    expect(verdict).toMatchObject({ fits: false, unreserved: 280, ownToday: 0, reservable: 180 });
    expect(verdict.message).toBe(
      "Lambda concurrency: the deploy reserves 266 (SyncPage 200, Api 20, TestConnectionApi 20, PreflightWorker 20, OpenApi 5, Purge 1), but this account can reserve only 180: " +
        "its quota here is 1,000, other functions reserve 720, and Lambda keeps 100 unreserved. Lower pageTaskConcurrency or apiConcurrency, or raise the quota (docs/operations.md, Runbook), then run this again.",
    );
  });

  test("reserved concurrency on a new account's reduced quota (GetAccountSettings' AccountLimit): 10 concurrent executions leave nothing to reserve", async () => {
    const { client } = stubLambda({ quota: 10, reservations: {} });
    const verdict = await checkReservedConcurrency(client, plan);
    expect(verdict).toMatchObject({ fits: false, quota: 10, reservable: -90 });
  });

  test("reserved concurrency on a redeploy: the stack's own reservations today are replaced, not added, and each is read by its function's name", async () => {
    const own = { "CrmIntegration-SyncFunctionsSyncPage-AB12": 200, "CrmIntegration-OnboardingApiApi-CD34": 20, "CrmIntegration-ConnectionPurge-EF56": 1 };
    const { client, requests } = stubLambda({ quota: 500, reservations: { ...own, "Other-Fn": 100 } }, 10);
    const verdict = await checkReservedConcurrency(client, plan);
    // Unreserved now: 500 - 321 = 179; with the stack's own 221 back, 400 - 100 = 300 may be reserved: 266 fits.
    expect(verdict).toMatchObject({ fits: true, unreserved: 179, ownToday: 221, reservable: 300 });
    expect(requests.filter((request) => request.command === "GetFunctionConcurrencyCommand").map((request) => request.input)).toEqual(
      Object.keys(own).map((FunctionName) => ({ FunctionName })),
    );
  });
});
