import { MAX_RECORD_DEPTH } from "../../core/limits";
import { isPlainObject } from "./object";

/** What a record nested deeper than MAX_RECORD_DEPTH breaks (its PageValidationError's rule). */
export const DEPTH_RULE = `nests objects and arrays more than ${MAX_RECORD_DEPTH} levels deep, counting the record; the service reads at most ${MAX_RECORD_DEPTH}`;

/**
 * Whether `value` nests objects and arrays more than `levels` deep (a scalar
 * is 0 levels, `{}` and `[]` are 1). It recurses, but never more than
 * `levels` + 1 calls deep, whatever the depth of `value`: no input can
 * exhaust the stack here.
 */
export function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels < 1) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, levels - 1)) return true;
    return false;
  }
  // JSON.parse makes plain objects: every enumerable key is the record's own.
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  return false;
}

/**
 * The top-level field of a record under which it nests deeper than
 * MAX_RECORD_DEPTH (`(record)` for a record that is itself an array), or null.
 * Checked before any recursive reader sees the record.
 */
export function tooDeepField(record: unknown): string | null {
  if (isPlainObject(record)) {
    for (const [key, value] of Object.entries(record)) if (nestsDeeperThan(value, MAX_RECORD_DEPTH - 1)) return key;
    return null;
  }
  return nestsDeeperThan(record, MAX_RECORD_DEPTH) ? "(record)" : null;
}
