import * as v from "valibot";
import { escapeLoneSurrogates } from "../core/characters";
import { PageValidationError } from "../core/errors";
import { DEPTH_RULE, tooDeepField } from "./fields/depth";
import { isPlainObject } from "./fields/object";

/** The record's own id when it has a usable one (a lone surrogate written as its escape). */
function usableIdOf(raw: unknown): string | null {
  const id = isPlainObject(raw) ? raw["id"] : undefined;
  return typeof id === "string" && id.length > 0 ? escapeLoneSurrogates(id) : null;
}

/** `stages[2].kind`, `price`; a problem with the record as a whole is `(record)`. */
function fieldOf(issue: v.BaseIssue<unknown>): string {
  const keys = issue.path?.map((item) => item.key) ?? [];
  if (keys.length === 0) return "(record)";
  return keys.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("");
}

/**
 * Validates and normalises one source record; the first broken rule throws a
 * PageValidationError, which fails the whole page. Its depth is checked first,
 * without recursion: valibot and every later reader recurse.
 */
export function parseRecord<TSchema extends v.GenericSchema>(
  schema: TSchema,
  raw: unknown,
  index: number,
): v.InferOutput<TSchema> {
  // Without a usable id the record is named by its 0-based place in the page.
  const id = usableIdOf(raw);
  const deep = tooDeepField(raw);
  if (deep !== null) throw new PageValidationError(id ?? `#${index}`, deep, DEPTH_RULE, { idUsable: id !== null });
  const result = v.safeParse(schema, raw, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  throw new PageValidationError(id ?? `#${index}`, fieldOf(issue), issue.message, { idUsable: id !== null });
}
