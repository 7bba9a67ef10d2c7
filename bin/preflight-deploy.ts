/**
 * `npm run preflight-deploy -- -c jwtIssuer=... -c jwtAudience=...` (the same
 * -c values as `cdk deploy`): before any function is created, asks the account
 * (lambda:GetAccountSettings, ListFunctions, GetFunctionConcurrency, with the
 * AWS credentials and region in use) whether the stack's reserved concurrency
 * fits, and exits 1 with one message when it does not (docs/operations.md).
 */
import { readFileSync, existsSync } from "node:fs";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { App } from "aws-cdk-lib";
import { readDeployConfig, reservedConcurrencyOf } from "../lib/deploy-config";
import { STACK_NAME } from "../lib/crm-integration-stack";
import { checkReservedConcurrency } from "./preflight-deploy/concurrency-check";

/** cdk.json's context, then cdk.context.json's, then each -c key=value (which wins), as the CDK CLI layers them. */
function deployContext(argv: readonly string[]): Record<string, unknown> {
  const read = (file: string) => (existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {});
  const context: Record<string, unknown> = { ...((read("cdk.json")["context"] as Record<string, unknown> | undefined) ?? {}), ...read("cdk.context.json") };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    const pair = flag === "-c" || flag === "--context" ? argv[++i] : flag.startsWith("--context=") ? flag.slice("--context=".length) : undefined;
    if (pair === undefined) throw new Error(`unknown argument ${flag}: pass the deploy's context as -c key=value`);
    const at = pair.indexOf("=");
    if (at < 1) throw new Error(`-c ${pair}: expected key=value`);
    context[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return context;
}

async function main(): Promise<void> {
  const config = readDeployConfig(new App({ context: deployContext(process.argv.slice(2)) }).node);
  const lambda = new LambdaClient({});
  try {
    const verdict = await checkReservedConcurrency(lambda, { stackName: STACK_NAME, ...reservedConcurrencyOf(config) });
    console.log(verdict.message);
    if (!verdict.fits) process.exitCode = 1;
  } finally {
    lambda.destroy();
  }
}

main().catch((error: unknown) => {
  // A bad context value or no AWS access: one line, as the synth would say it.
  console.error(`preflight-deploy: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
