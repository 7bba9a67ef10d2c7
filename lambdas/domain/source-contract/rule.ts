import type { Severity } from "../core/severity";

/** What every rule states: its stable id, how bad breaking it is, and where the spec says so. */
export interface RuleInfo {
  readonly id: string;
  readonly severity: Severity;
  /** Spec section, e.g. "Source API > Paging rules 3". */
  readonly spec: string;
  /** What the source's developers change to keep the rule, in a sentence (the quality route and the docs show it). */
  readonly fix: string;
}

/**
 * A rule and its check: one small function over what the kit observed,
 * returning what is wrong and how to fix it, or null when the rule holds.
 */
export interface Rule<TObservation> extends RuleInfo {
  readonly check: (observation: TObservation) => string | null;
}

export function rule<TObservation>(definition: Rule<TObservation>): Rule<TObservation> {
  return definition;
}
