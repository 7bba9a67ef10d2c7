import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  ListFunctionsCommand,
  type LambdaClient,
} from "@aws-sdk/client-lambda";
import { UNRESERVED_CONCURRENCY } from "../../lib/deploy-config";

/**
 * The deploy-time truth about reserved concurrency. Lambda ("Configuring
 * reserved concurrency for a function") refuses a reservation that would leave
 * less than 100 of the account's concurrency unreserved, and measures it
 * against what is unreserved now: the account's quota in the region
 * (GetAccountSettings' AccountLimit.ConcurrentExecutions; new accounts may
 * start lower than 1,000) less every other function's reservation (a second
 * copy of this service included). The synth's check compares with the
 * accountConcurrency context value instead, offline; this one asks the account.
 */

/** The Lambda client's one method this check uses, so a test can stand in for it. */
export type LambdaSettingsClient = Pick<LambdaClient, "send">;

export interface ConcurrencyPlan {
  /** The stack about to be deployed: its functions are named `<stack name>-...` by CloudFormation. */
  readonly stackName: string;
  /** The reservations the deploy sets, by function (lib/deploy-config.ts reservedConcurrencyOf). */
  readonly byFunction: Readonly<Record<string, number>>;
  readonly total: number;
}

export interface ConcurrencyVerdict {
  readonly fits: boolean;
  /** One line for a person: what the deploy reserves, what the account leaves, and what to do. */
  readonly message: string;
  readonly quota: number;
  /** Unreserved now, as Lambda counts it (the stack's own current reservations are not in it). */
  readonly unreserved: number;
  /** What the stack's functions reserve today (0 on a first deploy): the deploy replaces it. */
  readonly ownToday: number;
  /** The most the deploy may reserve: unreserved + ownToday - 100. */
  readonly reservable: number;
}

const count = (n: number) => n.toLocaleString("en-US");

/** Reads the account's settings and the stack's current reservations, and says whether the plan fits. */
export async function checkReservedConcurrency(lambda: LambdaSettingsClient, plan: ConcurrencyPlan): Promise<ConcurrencyVerdict> {
  const settings = await lambda.send(new GetAccountSettingsCommand({}));
  const quota = settings.AccountLimit?.ConcurrentExecutions ?? 0;
  const unreserved = settings.AccountLimit?.UnreservedConcurrentExecutions ?? quota;
  const ownToday = await stackReservations(lambda, plan.stackName);
  const reservable = unreserved + ownToday - UNRESERVED_CONCURRENCY;
  const fits = plan.total <= reservable;
  const others = quota - unreserved - ownToday;
  const reserved = Object.entries(plan.byFunction).map(([name, n]) => `${name} ${count(n)}`).join(", ");
  const message = fits
    ? `Lambda concurrency: the deploy reserves ${count(plan.total)} of the ${count(reservable)} this account can reserve (quota ${count(quota)}, ${count(others)} reserved by other functions, ${UNRESERVED_CONCURRENCY} kept unreserved).`
    : `Lambda concurrency: the deploy reserves ${count(plan.total)} (${reserved}), but this account can reserve only ${count(reservable)}: ` +
      `its quota here is ${count(quota)}, other functions reserve ${count(others)}, and Lambda keeps ${UNRESERVED_CONCURRENCY} unreserved. ` +
      `Lower pageTaskConcurrency or apiConcurrency, or raise the quota (docs/operations.md, Runbook), then run this again.`;
  return { fits, message, quota, unreserved, ownToday, reservable };
}

/** The reserved concurrency of the stack's deployed functions (CloudFormation names them `<stack name>-<logical id>-<suffix>`). */
async function stackReservations(lambda: LambdaSettingsClient, stackName: string): Promise<number> {
  const names: string[] = [];
  let marker: string | undefined;
  do {
    const page = await lambda.send(new ListFunctionsCommand(marker === undefined ? {} : { Marker: marker }));
    for (const fn of page.Functions ?? []) if (fn.FunctionName?.startsWith(`${stackName}-`)) names.push(fn.FunctionName);
    marker = page.NextMarker;
  } while (marker !== undefined);
  let total = 0;
  for (const name of names) total += (await lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: name }))).ReservedConcurrentExecutions ?? 0;
  return total;
}
