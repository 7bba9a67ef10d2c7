/**
 * The conformance kit for a customer's source API (docs/source-api.md):
 *
 *   SOURCE_TOKEN=... npm run --silent preflight -- https://crm.example.com/api/v1 --format junit
 *
 * Exit status 0 conforms, 1 an error finding, 2 could not run (one line on stderr saying what to do).
 */
import { EXIT_COULD_NOT_RUN } from "../lambdas/domain/preflight/report";
import { runPreflightCommand } from "./preflight/preflight-command";

runPreflightCommand(process.argv.slice(2), process.env, process).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`crm-preflight: ${error instanceof Error ? error.name : "error"}\n`);
    process.exitCode = EXIT_COULD_NOT_RUN;
  },
);
