/**
 * The command line of `npm run source`: flags, each of which can also come
 * from an environment variable SOURCE_<FLAG> (`--slow-ms` <- SOURCE_SLOW_MS).
 * A flag wins over its variable. Bad input is a UsageError naming the flag.
 */
import { parseArgs } from "node:util";
import { DEFAULT_SIZES, type DatasetSizes } from "./dataset";
import { NO_FAULTS, OPTIONAL_ENDPOINTS, type FaultOptions, type OptionalEndpoint } from "./faults";
import { DEFAULT_HOST, DEFAULT_SEED, DEFAULT_TOKEN, type ReferenceSourceOptions } from "./start-reference-source";

export const DEFAULT_PORT = 4000;
export const DEFAULT_MUTATE_EVERY_SECONDS = 30;

export const USAGE = `usage: npm run source -- [options]

  --port N             listen port (default ${DEFAULT_PORT}; 0 = any free port)       env SOURCE_PORT
  --host H             listen address (default ${DEFAULT_HOST})                  env SOURCE_HOST
  --token T            the accepted Bearer token (default ${DEFAULT_TOKEN})   env SOURCE_TOKEN
  --seed N             data seed; same seed, same data (default ${DEFAULT_SEED})
  --pipelines N --users N --contacts N --leads N --tasks N --calls N --events N
                       record counts (default ${Object.entries(DEFAULT_SIZES).map(([k, v]) => `${v} ${k}`).join(", ")})
  --mutate-every S     change a few records every S seconds (default ${DEFAULT_MUTATE_EVERY_SECONDS}; 0 = never)

fault knobs (all off by default):
  --throttle-every N   every Nth request answers 429 with Retry-After
  --retry-after S      the Retry-After of those 429s (default ${NO_FAULTS.retryAfterSeconds})
  --burst-503 N        after every --burst-every M requests (default ${NO_FAULTS.burstEvery}), the next N answer 503
  --burst-every M
  --slow-ms N          delay every response by N ms
  --bad-record         one lead on page 2 of /leads has price "not a number" (the page fails validation)
  --missing LIST       optional endpoints that answer 404, e.g. tasks,calls,events

Every flag can also be set as SOURCE_<FLAG>, e.g. SOURCE_SLOW_MS=200 or SOURCE_BAD_RECORD=1.`;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

const STRING_FLAGS = [
  "port", "host", "token", "seed",
  "pipelines", "users", "contacts", "leads", "tasks", "calls", "events",
  "mutate-every", "throttle-every", "retry-after", "burst-503", "burst-every", "slow-ms", "missing",
] as const;
type StringFlag = (typeof STRING_FLAGS)[number];

const envName = (flag: string): string => `SOURCE_${flag.toUpperCase().replaceAll("-", "_")}`;

// RFC 6750 tokens are printable ASCII; the service refuses to send anything else in a header.
const HEADER_SAFE_TOKEN = /^[\x21-\x7e]+$/;

/** The options to start with, or "help". */
export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): ReferenceSourceOptions | "help" {
  let values: Partial<Record<StringFlag, string>> & { "bad-record"?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(STRING_FLAGS.map((flag) => [flag, { type: "string" as const }])),
        "bad-record": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }) as { values: typeof values });
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0] ?? "bad arguments");
  }
  if (values.help === true) return "help";

  /** The flag's text: the flag, else its environment variable, else undefined. */
  const raw = (flag: StringFlag): string | undefined => values[flag] ?? (env[envName(flag)] || undefined);
  const whole = (flag: StringFlag, fallback: number, max = Number.MAX_SAFE_INTEGER): number => {
    const text = raw(flag);
    if (text === undefined) return fallback;
    if (!/^[0-9]+$/.test(text) || Number(text) > max) {
      throw new UsageError(`--${flag} must be a whole number ${max === Number.MAX_SAFE_INTEGER ? ">= 0" : `from 0 to ${max}`}`);
    }
    return Number(text);
  };

  const token = raw("token") ?? DEFAULT_TOKEN;
  if (!HEADER_SAFE_TOKEN.test(token)) throw new UsageError("--token must be printable ASCII without spaces");

  const mutateText = raw("mutate-every");
  const mutateEverySeconds = mutateText === undefined ? DEFAULT_MUTATE_EVERY_SECONDS : Number(mutateText);
  if (mutateText !== undefined && (!/^[0-9]+(\.[0-9]+)?$/.test(mutateText) || !Number.isFinite(mutateEverySeconds))) {
    throw new UsageError("--mutate-every must be a number of seconds >= 0 (0 = never)");
  }

  const sizes: DatasetSizes = {
    pipelines: whole("pipelines", DEFAULT_SIZES.pipelines),
    users: whole("users", DEFAULT_SIZES.users),
    contacts: whole("contacts", DEFAULT_SIZES.contacts),
    leads: whole("leads", DEFAULT_SIZES.leads),
    tasks: whole("tasks", DEFAULT_SIZES.tasks),
    calls: whole("calls", DEFAULT_SIZES.calls),
    events: whole("events", DEFAULT_SIZES.events),
  };

  const faults: FaultOptions = {
    throttleEvery: whole("throttle-every", NO_FAULTS.throttleEvery),
    retryAfterSeconds: whole("retry-after", NO_FAULTS.retryAfterSeconds),
    burst503: whole("burst-503", NO_FAULTS.burst503),
    burstEvery: whole("burst-every", NO_FAULTS.burstEvery),
    slowMs: whole("slow-ms", NO_FAULTS.slowMs),
    badRecord: values["bad-record"] ?? /^(1|true|yes)$/i.test(env[envName("bad-record")] ?? ""),
    missing: parseMissing(raw("missing")),
  };

  return {
    port: whole("port", DEFAULT_PORT, 65_535),
    host: raw("host") ?? DEFAULT_HOST,
    token,
    seed: whole("seed", DEFAULT_SEED),
    sizes,
    faults,
    mutateEverySeconds,
    // A long-running server must not grow a log without bound.
    recordRequests: false,
  };
}

function parseMissing(text: string | undefined): OptionalEndpoint[] {
  if (text === undefined) return [];
  const names = text
    .split(",")
    .map((name) => name.trim().replace(/^\//, ""))
    .filter((name) => name !== "");
  for (const name of names) {
    if (!(OPTIONAL_ENDPOINTS as readonly string[]).includes(name)) {
      throw new UsageError(
        `--missing takes ${OPTIONAL_ENDPOINTS.join(", ")}; "${name}" is not an optional endpoint ` +
          "(/pipelines, /users, /contacts and /leads are required)",
      );
    }
  }
  return [...new Set(names)] as OptionalEndpoint[];
}
