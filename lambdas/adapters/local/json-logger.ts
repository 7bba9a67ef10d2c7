import type { Clock } from "../../domain/core/ports/clock";
import { systemClock } from "../../domain/core/ports/clock";
import type { Logger } from "../../domain/core/ports/logger";

type Level = "info" | "warn" | "error";

/**
 * One JSON object per line, as CloudWatch Logs Insights and `jq` read them.
 * Callers pass ids and counts, never the source token or a decrypted secret.
 */
export function createJsonLogger(options: {
  readonly base?: Record<string, unknown>;
  readonly write?: (line: string) => void;
  readonly clock?: Clock;
} = {}): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const clock = options.clock ?? systemClock;
  const log = (level: Level) => (message: string, fields: Record<string, unknown> = {}) =>
    write(JSON.stringify({ level, time: clock.now().toISOString(), message, ...options.base, ...fields }));
  return { info: log("info"), warn: log("warn"), error: log("error") };
}

/** Keeps every line in memory: for tests and for the demo's progress view. */
export function createMemoryLogger(): Logger & { readonly lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createJsonLogger({ write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { ...logger, lines };
}
