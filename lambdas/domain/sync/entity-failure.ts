import * as v from "valibot";
import { truncateText } from "../core/characters";
import { cutDetail, PageValidationError, SourceHardError, SourceTransientError, SyncError } from "../core/errors";
import { MAX_RETRIES, TEXT_LIMITS } from "../core/limits";
import type { EntityFailure } from "../core/run-summary";
import { RULES_BY_ID } from "../source-contract/rules/catalog";
import { requiredPresent } from "../source-contract/rules/endpoint-rules";
import * as failures from "../source-contract/rules/failure-rules";
import { rateRetriesExhausted } from "../source-contract/rules/rate-rules";
import type { CaughtError } from "./sync-state";
import { RULE_OF_ERROR_CLASS } from "./error-classes";

/*
 * Why an entity failed, as its summary row shows it: the catalog's rule, the
 * record and field when there is one, a detail written for a person (record,
 * field and rule first; never an error class) and the rule's fix.
 *
 * The page task's error reaches EntityFailed through the state machine's
 * Catch, whose Cause carries only the Lambda error envelope
 * ({errorType, errorMessage, trace}: the error's name and message, on AWS and
 * on the local engine alike). So the SyncPage handler writes the failure as
 * JSON into the message (withFailureMessage), the Catch still matches by the
 * error's name, and EntityFailed reads it back (caughtFailure). A Cause that
 * carries none (a Pass state's plain detail, a Task time-out, an error of
 * ours) falls back to the rule of the error's class.
 */

/** The failure as it travels from the page task to EntityFailed. */
export const FailureFactsSchema = v.object({
  rule: v.string(),
  record_id: v.nullable(v.string()),
  field: v.nullable(v.string()),
  detail: v.string(),
  /** No try of the page reached the source: the entities after it fail at once with the same rule (docs/state-machine.md). */
  source_down: v.optional(v.boolean()),
});
export type FailureFacts = v.InferOutput<typeof FailureFactsSchema>;

function ruleOfClassName(name: string): string {
  return Object.hasOwn(RULE_OF_ERROR_CLASS, name) ? RULE_OF_ERROR_CLASS[name]! : failures.serviceCompletes.id;
}

/** The rule a thrown error broke: its throw site's, else its class's (a status refines a transient or hard error). */
export function ruleOfError(error: SyncError): string {
  if (error.ruleId !== null) return error.ruleId;
  if (error instanceof SourceTransientError && error.httpStatus !== null) return failures.sourceServerErrorsRecover.id;
  if (error instanceof SourceHardError && error.httpStatus !== null) return failures.sourceStatus200.id;
  return ruleOfClassName(error.name);
}

/** Rules whose failure is ours: the owner reads what happened, never our store's or runtime's own words. */
const OURS = new Set([failures.serviceAvailable.id, failures.serviceCompletes.id]);

/** What happened, in a person's words, before the error's own detail ("" when the detail says it all). */
function leadOf(rule: string, httpStatus: number | null): string {
  const status = httpStatus === null ? "" : ` (HTTP ${httpStatus})`;
  const leads: Readonly<Record<string, string>> = {
    [failures.authTokenAccepted.id]: "the source refused the token (401)",
    [requiredPresent.id]: "the source answered 404: this required endpoint is not implemented",
    [rateRetriesExhausted.id]: `the source still answered 429 after ${MAX_RETRIES} retries`,
    [failures.sourceReachable.id]: `the source could not be reached, through ${MAX_RETRIES} retries`,
    [failures.sourceAnswersInTime.id]: `the source did not answer in time, through ${MAX_RETRIES} retries`,
    [failures.sourceServerErrorsRecover.id]: `the source kept failing${status}, through ${MAX_RETRIES} retries`,
    [failures.sourceStatus200.id]: `the source refused the request${status}`,
    [failures.sourceBaseUrlAllowed.id]: "the service may not call this base URL",
    [failures.envelopeSize.id]: "the page is too large",
    [failures.connectionTokenReadable.id]: "the stored token can no longer be read",
    [failures.serviceAvailable.id]: "the service's own store was busy through its retries; nothing is wrong with the source",
    [failures.serviceCompletes.id]: "the service failed on its side; nothing is wrong with the source",
  };
  if (Object.hasOwn(leads, rule)) return leads[rule]!;
  return rule.startsWith("envelope.") ? "the page is not the spec's envelope" : "";
}

/** An id or field kept short enough inside a detail that what follows it always fits the 300 characters. */
const ID_IN_DETAIL_CHARS = 60;
const FIELD_IN_DETAIL_CHARS = 80;

function shortened(text: string, max: number): string {
  const cut = truncateText(text, max);
  return cut === text ? text : `${cut}…`;
}

/** The facts of a thrown error, worded for the owner. */
export function failureOfThrown(error: unknown): FailureFacts {
  if (!(error instanceof SyncError)) return { rule: failures.serviceCompletes.id, record_id: null, field: null, detail: leadOf(failures.serviceCompletes.id, null) };
  const rule = ruleOfError(error);
  const words = error instanceof PageValidationError ? error.rule : error.detail;
  if (error.record !== null) {
    const { id, field } = error.record;
    const position = error instanceof PageValidationError && id === null ? ` (${error.recordId}: no usable id)` : "";
    const head = [`record ${id === null ? "without an id" : shortened(id, ID_IN_DETAIL_CHARS)}${position}`, field === null ? null : `field ${shortened(field, FIELD_IN_DETAIL_CHARS)}`, `rule ${rule}`];
    return {
      rule,
      record_id: id === null ? null : shortened(id, TEXT_LIMITS.id),
      field: field === null ? null : shortened(field, TEXT_LIMITS.id),
      detail: cutDetail(`${head.filter((part) => part !== null).join(", ")}: ${words}`),
    };
  }
  const down = error instanceof SourceTransientError && error.sourceDown ? { source_down: true } : {};
  return { rule, record_id: null, field: null, detail: describe(rule, error.httpStatus, words), ...down };
}

function describe(rule: string, httpStatus: number | null, words: string): string {
  const lead = leadOf(rule, httpStatus);
  if (OURS.has(rule)) return lead;
  return cutDetail(lead === "" ? words : words === "" ? lead : `${lead}: ${words}`);
}

/** The failure with its rule's fix from the catalog. */
export function entityFailure(facts: FailureFacts): EntityFailure {
  const known = RULES_BY_ID.get(facts.rule) ?? failures.serviceCompletes;
  return { rule: known.id, record_id: facts.record_id, field: facts.field, detail: cutDetail(facts.detail), fix: known.fix };
}

/** A failure of ours with no error to read it from (a run that stopped, was taken over, or never started). */
export function serviceFailure(detail: string): EntityFailure {
  return entityFailure({ rule: failures.serviceCompletes.id, record_id: null, field: null, detail });
}

/**
 * The page task's error as its handler throws it: same class and name (the
 * definition's Retry and Catch match the name), its message the failure as
 * JSON, which is all the Lambda runtime and the local engine hand on. Errors
 * that are not a SyncError are left as they are (a bug: ours).
 */
export function withFailureMessage(error: unknown): unknown {
  if (error instanceof SyncError) error.message = JSON.stringify({ failure: failureOfThrown(error) });
  return error;
}

/** The failure a Catch handed on: the page task's own facts when its message carries them, else its class's rule. */
export function caughtFailure(caught: CaughtError): EntityFailure & { readonly sourceDown: boolean } {
  const cause = caught.Cause ?? "";
  const message = envelopeMessage(cause);
  const carried = message === null ? null : carriedFacts(message);
  if (carried !== null) return { ...entityFailure(carried), sourceDown: carried.source_down === true };
  const rule = ruleOfClassName(caught.Error);
  // A Pass state puts the plain detail in Cause; an envelope without our JSON has the message (a Task time-out, a bug).
  const words = message ?? cause;
  return { ...entityFailure({ rule, record_id: null, field: null, detail: describe(rule, null, words) }), sourceDown: false };
}

function envelopeMessage(cause: string): string | null {
  try {
    const parsed: unknown = JSON.parse(cause);
    const message = typeof parsed === "object" && parsed !== null ? (parsed as { errorMessage?: unknown }).errorMessage : undefined;
    return typeof message === "string" ? message : null;
  } catch {
    return null;
  }
}

function carriedFacts(message: string): FailureFacts | null {
  try {
    const parsed = v.safeParse(v.object({ failure: FailureFactsSchema }), JSON.parse(message));
    return parsed.success ? parsed.output.failure : null;
  } catch {
    return null;
  }
}
