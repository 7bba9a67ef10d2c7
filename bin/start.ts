import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createJsonLogger } from "../lambdas/adapters/local/json-logger";
import { readLocalRuntimeConfig, StartupError } from "../lambdas/runtimes/local/local-runtime-config";
import { startLocalRuntime } from "../lambdas/runtimes/local/local-runtime";
import { ensureConsoleBuilt } from "../lambdas/runtimes/local/console-build";

/** `npm start`: the whole service on this machine. Settings: the README's "Running locally" table. */
// The machines here run Node 20; Lambda runs nodejs22.x. The SDK's notice about Node 22 says nothing new locally.
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";

/** Where `npm run token` looks without DATA_DIR: npm runs scripts in the package root, so ./.data there. */
const DEFAULT_TOKEN_DATA_DIR = resolve(fileURLToPath(new URL("..", import.meta.url)), ".data");

/**
 * The exact command that mints a token this runtime accepts: the token is
 * signed with DATA_DIR's key, so any other data directory must be named, or
 * the token is one the running service rejects with 401.
 */
function ownerTokenCommand(dataDir: string): string {
  const command = "npm run --silent token -- --account ACC --role owner";
  return dataDir === DEFAULT_TOKEN_DATA_DIR ? command : `DATA_DIR=${shellQuoted(dataDir)} ${command}`;
}

/** POSIX shell quoting, only when needed: the line is meant to be pasted. */
function shellQuoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

async function main(): Promise<void> {
  const config = readLocalRuntimeConfig();
  const logger = createJsonLogger();
  // The owner's console at `/`: built when missing or older than its sources; the API runs even if the build fails.
  await ensureConsoleBuilt(undefined, (line) => console.log(line)).catch((error: unknown) =>
    console.error(`console not built (${error instanceof Error ? error.message : String(error)}): the API runs without it; see npm run build`),
  );
  const runtime = await startLocalRuntime(config, logger);
  const schedule = config.SCHEDULE === null ? "off" : process.env["SCHEDULE"] ?? "1h";
  console.log(
    `CRM integration service: console on ${runtime.url}/ · API on ${runtime.url}/api/v1 · get an owner token: ${ownerTokenCommand(runtime.dataDir)} · data in ${runtime.dataDir} · schedule ${schedule} · TIME_SCALE ${config.TIME_SCALE}`,
  );

  const shutdown = (signal: string) => {
    console.log(`${signal}: stopping (finishing the page in flight, then DynamoDB Local)…`);
    runtime.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`error while stopping: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  // One line that says what is wrong and what to do; no stack for the failures we expect.
  console.error(error instanceof StartupError ? `cannot start: ${error.message}` : `cannot start: ${String(error)}`);
  process.exit(1);
});
