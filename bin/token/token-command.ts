/**
 * The command behind `npm run token` (bin/token.ts): parses its arguments and
 * prints one session token, or the usage on bad arguments.
 */
import { parseArgs } from "node:util";
import * as v from "valibot";
import {
  DEFAULT_SESSION_TTL_SECONDS,
  issueSessionToken,
  loadOrCreateSigningKey,
} from "../../lambdas/runtimes/local/local-token-issuer";
import { SESSION_CLAIM, SESSION_ROLES, SessionClaimsSchema, type Session } from "../../lambdas/domain/onboarding/auth/session-claims";
import { TEXT_LIMITS } from "../../lambdas/domain/core/limits";

const USAGE = `usage: npm run --silent token -- --account ACC --role ${SESSION_ROLES.join("|")} [--user U] [--email E] [--ttl SECONDS] [--data-dir DIR]`;

class UsageError extends Error {
  override readonly name = "UsageError";
}

interface TokenArgs {
  readonly session: Session;
  readonly userGiven: boolean;
  readonly ttlSeconds: number;
  readonly dataDir: string;
}

function parse(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): TokenArgs | "help" {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        account: { type: "string" },
        role: { type: "string" },
        user: { type: "string" },
        email: { type: "string" },
        ttl: { type: "string" },
        "data-dir": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0] ?? "bad arguments");
  }
  if (values.help === true) return "help";
  if (values.account === undefined) throw new UsageError("--account is required");
  if (values.role === undefined) throw new UsageError("--role is required");

  // The claims the local runtime will hand the handlers must parse: check them now, not at the first request.
  const user = values.user ?? `local-${values.role.toLowerCase()}`;
  const parsed = v.safeParse(SessionClaimsSchema, {
    [SESSION_CLAIM.businessAccountId]: values.account,
    [SESSION_CLAIM.userId]: user,
    [SESSION_CLAIM.role]: values.role,
    ...(values.email === undefined ? {} : { [SESSION_CLAIM.email]: values.email }),
  });
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const flag = { [SESSION_CLAIM.businessAccountId]: "--account", [SESSION_CLAIM.userId]: "--user", [SESSION_CLAIM.role]: "--role" };
    const key = issue?.path?.[0]?.key;
    const name = typeof key === "string" && key in flag ? flag[key as keyof typeof flag] : "argument";
    throw new UsageError(`${name}: ${issue?.message ?? "invalid"}`);
  }
  // An email the API would not use (empty, over 255 characters, several lines) is refused here, not silently ignored there.
  if (values.email !== undefined && parsed.output.email === null) throw new UsageError(`--email: must be one line of 1 to ${TEXT_LIMITS.email} characters`);

  let ttlSeconds = DEFAULT_SESSION_TTL_SECONDS;
  if (values.ttl !== undefined) {
    if (!/^[0-9]+$/.test(values.ttl) || !Number.isSafeInteger(Number(values.ttl)) || Number(values.ttl) <= 0) {
      throw new UsageError("--ttl must be a positive whole number of seconds");
    }
    ttlSeconds = Number(values.ttl);
  }

  const dataDir = values["data-dir"] ?? (env["DATA_DIR"] || "./.data");
  if (dataDir.length === 0) throw new UsageError("--data-dir must not be empty");
  return { session: parsed.output, userGiven: values.user !== undefined, ttlSeconds, dataDir };
}

/** Where the command reads its environment and writes its output: the process's own in bin/token.ts, captured in tests. */
export interface TokenIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** `npm run token` with its arguments: the exit status (0, or 2 for bad arguments, with the usage on stderr). */
export async function tokenCommand(argv: readonly string[], io: TokenIo): Promise<number> {
  let args: TokenArgs | "help";
  try {
    args = parse(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`token: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (args === "help") {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const key = await loadOrCreateSigningKey(args.dataDir);
  const token = await issueSessionToken({
    key,
    account: args.session.businessAccountId,
    role: args.session.role,
    user: args.session.userId,
    ...(args.session.email === null ? {} : { email: args.session.email }),
    ttlSeconds: args.ttlSeconds,
  });
  io.stdout(`${token}\n`);
  return 0;
}
