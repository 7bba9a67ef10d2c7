/**
 * The reference source API: a complete implementation of the customer's side
 * of the spec, on realistic data, for customer developers to read and for
 * tests, demos and benchmarks to pull from.
 *
 *   npm run source                                  # http://127.0.0.1:4000, token reference-token
 *   npm run source -- --port 0 --leads 200          # any free port, a smaller CRM
 *   npm run source -- --throttle-every 7 --missing events
 *
 * Prints one line when listening; Ctrl-C stops it. `--help` lists every flag.
 * Bad flags: a message and the usage on stderr, exit code 2. Port taken: exit code 1.
 * In-process use: startReferenceSource() in bin/reference-source/start-reference-source.ts.
 */
import { parseCli, USAGE, UsageError } from "./reference-source/cli-options";
import { startReferenceSource, type ReferenceSource, type ReferenceSourceOptions } from "./reference-source/start-reference-source";

function banner(source: ReferenceSource, options: ReferenceSourceOptions): string {
  const { dataset } = source;
  const counts = (["leads", "contacts", "users", "pipelines", "tasks", "calls", "events"] as const)
    .map((name) => `${dataset[name].length} ${name}`)
    .join(", ");
  const mutateEvery = options.mutateEverySeconds ?? 0;
  const changes = mutateEvery > 0 ? `changes every ${mutateEvery} s` : "no changes";
  const details = `token: ${source.token}, ${counts}, seed ${dataset.seed}, ${changes}, faults: ${source.faults.describe()}`;
  return `Reference source API on ${source.url} (${details})`;
}

/** One line for a failed start, saying what to do about it. */
function startFailure(error: unknown, options: ReferenceSourceOptions): string {
  const code = (error as { code?: unknown }).code;
  const where = `port ${options.port} on ${options.host}`;
  if (code === "EADDRINUSE") {
    return (
      `${where} is already in use: stop what is listening there, ` +
      "or pick another port with --port (or SOURCE_PORT; --port 0 takes any free one)"
    );
  }
  if (code === "EACCES") return `not allowed to listen on ${where}: use a port above 1023 with --port`;
  if (code === "EADDRNOTAVAIL") return `${options.host} is not an address of this machine: use --host 127.0.0.1`;
  return error instanceof Error ? error.message : String(error);
}

async function main(): Promise<number> {
  let options: ReferenceSourceOptions | "help";
  try {
    options = parseCli(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`reference-source: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }

  let source: ReferenceSource;
  try {
    source = await startReferenceSource(options);
  } catch (error) {
    // Sizes the dataset cannot honour (e.g. events without leads) are bad arguments too.
    if (error instanceof RangeError) {
      process.stderr.write(`reference-source: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`reference-source: ${startFailure(error, options)}\n`);
    return 1;
  }
  process.stdout.write(`${banner(source, options)}\n`);

  // Ctrl-C (or a TERM from a process manager): stop listening, end open connections, let the process exit.
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(130); // a second Ctrl-C does not wait
    stopping = true;
    source.close().then(
      () => {
        process.exitCode = 0;
      },
      (error: unknown) => {
        process.stderr.write(`reference-source: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exitCode = 1;
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`reference-source: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
