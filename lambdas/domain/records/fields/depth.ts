import { MAX_RECORD_DEPTH } from "../../core/limits";
import { isPlainObject } from "./object";

/** What a record nested deeper than MAX_RECORD_DEPTH breaks (its PageValidationError's rule). */
export const DEPTH_RULE = `nests objects and arrays more than ${MAX_RECORD_DEPTH} levels deep, counting the record; the service reads at most ${MAX_RECORD_DEPTH}`;

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function childrenOf(container: object): readonly unknown[] {
  return Array.isArray(container) ? container : Object.values(container);
}

/**
 * Whether `value` nests objects and arrays more than `levels` deep (a scalar
 * is 0 levels, `{}` and `[]` are 1). Iterative, and it never holds more than
 * `levels` frames, so no depth or width can exhaust the stack or the heap.
 */
export function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (!isContainer(value)) return false;
  if (levels < 1) return true;
  const frames: { readonly items: readonly unknown[]; next: number }[] = [{ items: childrenOf(value), next: 0 }];
  while (frames.length > 0) {
    const top = frames[frames.length - 1]!;
    if (top.next === top.items.length) {
      frames.pop();
      continue;
    }
    const child = top.items[top.next];
    top.next += 1;
    if (!isContainer(child)) continue;
    if (frames.length === levels) return true;
    frames.push({ items: childrenOf(child), next: 0 });
  }
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
