import { isPlainObject } from "./object";

export type WrappedValue = Record<string, unknown> | unknown[];

/** Scalars become `{ value }` so that every stored value is an object or an array; null stays null. */
export function wrapValue(value: unknown): WrappedValue | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value) || isPlainObject(value)) return value;
  return { value };
}
