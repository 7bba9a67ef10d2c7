/**
 * The conformance kit for a customer's source API (docs/source-api.md):
 *
 *   SOURCE_TOKEN=... npm run --silent preflight -- https://crm.example.com/api/v1 --format junit
 *
 * Exit status 0 conforms, 1 an error finding, 2 could not run (one line on stderr saying what to do).
 */
import { formatJson } from "../lambdas/preflight/format/format-json";
import { formatJunit } from "../lambdas/preflight/format/format-junit";
import { formatText } from "../lambdas/preflight/format/format-text";
import { PreflightCannotRunError } from "../lambdas/preflight/preflight-errors";
import { redactSecrets } from "../lambdas/preflight/redact-token";
import { EXIT_COULD_NOT_RUN, exitCodeOf } from "../lambdas/preflight/report";
import { runPreflight } from "../lambdas/preflight/run-preflight";
import { parseCli, USAGE, UsageError, type PreflightCli } from "./preflight/cli-options";

const FORMATTERS = { text: formatText, json: formatJson, junit: formatJunit };
/** A progress line every this many pages, for a person watching a large source. */
const PROGRESS_EVERY_PAGES = 25;

async function main(): Promise<number> {
  let cli: PreflightCli | "help";
  try {
    cli = parseCli(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`crm-preflight: ${error.message}\n`);
    return EXIT_COULD_NOT_RUN;
  }
  if (cli === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { token, format } = cli;
  try {
    const result = await runPreflight({
      baseUrl: cli.baseUrl,
      token,
      rate: cli.rate,
      maxPages: cli.maxPages,
      fetch: (url, init) => fetch(url, init),
      onProgress: ({ endpoint, page }) => {
        if (format === "text" && page % PROGRESS_EVERY_PAGES === 0) process.stderr.write(`  ... ${endpoint}: page ${page}\n`);
      },
    });
    process.stdout.write(FORMATTERS[format](result));
    return exitCodeOf(result.report);
  } catch (error) {
    const message = error instanceof PreflightCannotRunError ? error.message : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`crm-preflight: ${redactSecrets(message, [token])}\n`);
    return EXIT_COULD_NOT_RUN;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`crm-preflight: ${error instanceof Error ? error.name : "error"}\n`);
    process.exitCode = EXIT_COULD_NOT_RUN;
  },
);
