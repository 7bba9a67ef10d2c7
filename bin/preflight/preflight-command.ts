/** crm-preflight as a function (bin/preflight.ts runs it on the process): its tests need no process of their own. */
import { formatJson } from "../../lambdas/domain/preflight/format/format-json";
import { formatJunit } from "../../lambdas/domain/preflight/format/format-junit";
import { formatText } from "../../lambdas/domain/preflight/format/format-text";
import { PreflightCannotRunError } from "../../lambdas/domain/preflight/preflight-errors";
import { redactSecrets } from "../../lambdas/domain/preflight/redact-token";
import { EXIT_COULD_NOT_RUN, exitCodeOf } from "../../lambdas/domain/preflight/report";
import { runPreflight } from "../../lambdas/domain/preflight/run-preflight";
import { parseCli, USAGE, UsageError, type PreflightCli } from "./cli-options";

const FORMATTERS = { text: formatText, json: formatJson, junit: formatJunit };
/** A progress line every this many pages, for a person watching a large source. */
const PROGRESS_EVERY_PAGES = 25;

/** Where the command writes: the process's streams, or a test's buffers. */
export interface CommandOutput {
  write(text: string): unknown;
}
export interface CommandIo {
  readonly stdout: CommandOutput;
  readonly stderr: CommandOutput;
}

/** The whole command, given its arguments, environment and streams: returns the exit status, never exits. */
export async function runPreflightCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CommandIo): Promise<number> {
  let cli: PreflightCli | "help";
  try {
    cli = parseCli(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`crm-preflight: ${error.message}\n`);
    return EXIT_COULD_NOT_RUN;
  }
  if (cli === "help") {
    io.stdout.write(`${USAGE}\n`);
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
        if (format === "text" && page % PROGRESS_EVERY_PAGES === 0) io.stderr.write(`  ... ${endpoint}: page ${page}\n`);
      },
    });
    io.stdout.write(FORMATTERS[format](result));
    return exitCodeOf(result.report);
  } catch (error) {
    const message = error instanceof PreflightCannotRunError ? error.message : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
    io.stderr.write(`crm-preflight: ${redactSecrets(message, [token])}\n`);
    return EXIT_COULD_NOT_RUN;
  }
}
