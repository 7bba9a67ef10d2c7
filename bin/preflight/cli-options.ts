import { DEFAULT_RATE_LIMIT, MAX_PAGES_PER_ENTITY, MAX_RATE_LIMIT } from "../../lambdas/domain/core/limits";

export const FORMATS = ["text", "json", "junit"] as const;
export type Format = (typeof FORMATS)[number];

export interface PreflightCli {
  readonly baseUrl: string;
  readonly token: string;
  readonly rate: number;
  readonly format: Format;
  readonly maxPages: number;
}

export const USAGE = `Usage: crm-preflight <base_url> [--token <token>] [--rate N] [--format text|json|junit] [--max-pages N]

Checks a live source API against every source-side rule of the CRM integration
spec and names the rule each problem breaks. GET requests only; safe against production.

  <base_url>        root of the source API, e.g. https://crm.example.com/api/v1
  --token <token>   the Bearer token the service will use. Or set SOURCE_TOKEN instead:
                    that keeps the token out of your shell history and process list.
  --rate N          at most N requests in any second (default ${DEFAULT_RATE_LIMIT}, the spec's default;
                    at most ${MAX_RATE_LIMIT}); use the rate you will declare for the connection
  --format F        text (default, for a person), json (one object on stdout) or junit (for CI)
  --max-pages N     page through at most N pages per endpoint (default and most ${MAX_PAGES_PER_ENTITY})
  -h, --help        this text

Exit status: 0 the source conforms (warnings allowed), 1 at least one error finding,
2 the check could not run (bad arguments, DNS, TLS, connection refused).
The token is never printed.`;

/** A bad command line: one line saying what to do. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

function wholeNumber(flag: string, text: string | undefined, max: number): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(`${flag} needs a whole number from 1 to ${max}`);
  }
  return Number(text);
}

export function parseCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): PreflightCli | "help" {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h" || arg === "--help") return "help";
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (!["--token", "--rate", "--format", "--max-pages"].includes(name)) throw new UsageError(`unknown option ${name}: see --help`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    flags.set(name, value);
  }
  if (positional.length !== 1) throw new UsageError("pass exactly one base URL, e.g. crm-preflight https://crm.example.com/api/v1");
  const token = flags.get("--token") ?? env["SOURCE_TOKEN"] ?? "";
  if (token === "") throw new UsageError("no token: set SOURCE_TOKEN (keeps it out of shell history) or pass --token");
  const format = flags.get("--format") ?? "text";
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}`);
  return {
    baseUrl: positional[0]!,
    token,
    rate: flags.has("--rate") ? wholeNumber("--rate", flags.get("--rate"), MAX_RATE_LIMIT) : DEFAULT_RATE_LIMIT,
    format: format as Format,
    maxPages: flags.has("--max-pages") ? wholeNumber("--max-pages", flags.get("--max-pages"), MAX_PAGES_PER_ENTITY) : MAX_PAGES_PER_ENTITY,
  };
}
