import { MAX_RECORD_DEPTH } from "../../lambdas/domain/core/limits";

/**
 * Hostile values a source may send, as builders: nesting of any depth (as a
 * value, or as JSON text when it is too deep for JSON.stringify), ids that
 * differ only in code units UTF-8 cannot hold.
 */

/** `levels` arrays inside one another around `leaf` (0 levels: the leaf itself). */
export function nestedArrays(levels: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

/**
 * custom_fields that make a record exactly `depth` levels deep, the record
 * being level 1 and custom_fields level 2: `{"x": [[...]]}`.
 */
export function customFieldsOfDepth(depth: number): Record<string, unknown> {
  return { x: nestedArrays(depth - 2) };
}

/** The JSON text of `levels` arrays inside one another: too deep for JSON.stringify, not for JSON.parse. */
export function nestedArraysJson(levels: number): string {
  return `${"[".repeat(levels)}${"]".repeat(levels)}`;
}

/** The deepest record the service accepts, and the shallowest it refuses. */
export const DEPTH_EDGES = { accepted: MAX_RECORD_DEPTH, refused: MAX_RECORD_DEPTH + 1 } as const;
