import { codePointLength } from "../../core/characters";
import type { SyncEntity } from "../../core/entities";
import { isPlainObject } from "../../records/fields/object";
import type { PageValidationError } from "../../core/errors";
import { DEPTH_RULE } from "../../records/fields/depth";
import { ID_TEXT_RULE } from "../../records/fields/text";
import { parseTimestamp } from "../../records/fields/timestamp";
import { MAX_RECORD_DEPTH } from "../../core/limits";
import { rule } from "../rule";
import { CLOCK_SKEW_ALLOWANCE_SECONDS } from "../../core/limits";
import { isPastPresent } from "../../core/present-bound";

/**
 * One record, with the first rule the sync's own schema (parseRecord) found
 * broken in it, or null when the sync accepts it.
 */
export interface RecordObservation {
  readonly entity: SyncEntity;
  readonly raw: Record<string, unknown>;
  readonly recordId: string;
  readonly invalid: PageValidationError | null;
  /** What the sync stores from it: the schema's output, null when it refused the record. */
  readonly output: unknown;
  /** The latest compared timestamp the sync trusts now (its clock plus CLOCK_SKEW_ALLOWANCE_SECONDS); absent: not checked (the kit). */
  readonly latestTrusted?: string;
}

const fails = "; the service fails the whole page";

/** A schema failure at a field matching `field`, on `entities` (all when omitted); `only` narrows it to one broken rule. */
function schemaRule(id: string, spec: string, field: RegExp, fix: string, entities?: readonly SyncEntity[], only?: (brokenRule: string) => boolean) {
  return rule<RecordObservation>({
    id,
    severity: "error",
    spec,
    fix: `${fix[0]!.toUpperCase()}${fix.slice(1)}.`,
    check: ({ entity, invalid }) =>
      invalid !== null && field.test(invalid.field) && (entities === undefined || entities.includes(entity)) && (only === undefined || only(invalid.rule))
        ? `record ${invalid.recordId}: field ${invalid.field} ${invalid.rule}: ${fix}${fails}`
        : null,
  });
}

const ID_FIELD = /^(stages\[\d+\]\.)?id$/;
export const recordId = schemaRule("record.id", "Resources > Conventions for all source records", ID_FIELD, "send a stable non-empty string id of at most 255 characters", undefined, (broken) => broken !== ID_TEXT_RULE);
/** An id the store could not keep as sent (a lone surrogate): its own rule, so the fix says why. */
export const recordIdUnicode = schemaRule("record.id-unicode", "Resources > Conventions for all source records (id: unique, never changes)", ID_FIELD, "send ids as valid Unicode text: a \\uD800 to \\uDFFF escape only as half of a surrogate pair", undefined, (broken) => broken === ID_TEXT_RULE);
export const pipelineStages = schemaRule("pipeline.stages", "Resources > Pipeline", /^stages$/, "send stages as an array ([] when the pipeline has none)", ["pipelines"]);
export const pipelineSortInteger = schemaRule("pipeline.sort-integer", "Resources > Pipeline; Stage", /^(stages\[\d+\]\.)?sort$/, "send sort as a JSON integer, or omit it", ["pipelines"]);
export const stageKind = schemaRule("stage.kind", "Resources > Stage", /^stages\[\d+\]\.kind$/, "send kind as open, won or lost", ["pipelines"]);
export const leadPriceNumeric = schemaRule("lead.price-numeric", "Resources > Lead", /^price$/, "send price as a number or a numeric string", ["leads"]);
export const callDurationInteger = schemaRule("call.duration-integer", "Resources > Call", /^duration_seconds$/, "send duration_seconds as a JSON integer (not a string)", ["calls"]);
export const eventLeadId = schemaRule("event.lead-id", "Resources > Event", /^lead_id$/, "send the lead_id of the lead the event belongs to", ["events"]);

/** A call must link to a lead or a contact; the schema reports it at lead_id. */
export const callAssociation = rule<RecordObservation>({
  id: "call.association",
  severity: "error",
  spec: "Resources > Call (Association)",
  fix: "Send the lead_id or contact_id of every call.",
  check: ({ entity, raw, invalid }) =>
    entity === "calls" && invalid?.field === "lead_id" && !raw["lead_id"] && !raw["contact_id"]
      ? `record ${invalid.recordId}: a call has neither lead_id nor contact_id: send at least one${fails}`
      : null,
});

/** A record nested deeper than the service reads (checked before any other field). */
export const recordDepth = rule<RecordObservation>({
  id: "record.depth",
  severity: "error",
  spec: "Resources and their fields (custom_fields: a flat map)",
  fix: `Keep every record within ${MAX_RECORD_DEPTH} levels of objects and arrays inside one another (custom_fields is a flat map of name to value).`,
  check: ({ invalid }) =>
    invalid !== null && invalid.rule === DEPTH_RULE
      ? `record ${invalid.recordId}: field ${invalid.field} ${DEPTH_RULE}: keep records within ${MAX_RECORD_DEPTH} levels${fails}`
      : null,
});

const SPECIFIC = [recordDepth, recordId, recordIdUnicode, pipelineStages, pipelineSortInteger, stageKind, leadPriceNumeric, callDurationInteger, eventLeadId, callAssociation];

/** Any other rule of the sync's schemas (a name that is a number, a boolean that is a string...). */
export const recordFields = rule<RecordObservation>({
  id: "record.fields",
  severity: "error",
  spec: "Resources and their fields",
  fix: "Send each field with the type the spec gives it.",
  check: (observation) => {
    const { invalid } = observation;
    if (invalid === null || SPECIFIC.some((specific) => specific.check(observation) !== null)) return null;
    return `record ${invalid.recordId}: field ${invalid.field} ${invalid.rule}${fails}`;
  },
});

/** The timestamp that drives the watermark: updated_at (events: updated_at, else created_at). */
export function comparedRaw(entity: SyncEntity, raw: Record<string, unknown>): string | null {
  if (entity === "events") return parseTimestamp(raw["updated_at"]) ?? parseTimestamp(raw["created_at"]);
  return parseTimestamp(raw["updated_at"]);
}

const INCREMENTAL: readonly SyncEntity[] = ["contacts", "leads", "tasks", "calls", "events"];

/** updated_at present and parseable on every incremental record, or it drops out of incremental sync. */
export const recordUpdatedAt = rule<RecordObservation>({
  id: "record.updated-at",
  severity: "error",
  spec: "Resources > Conventions (timestamps); Incremental rules 3",
  fix: "Send updated_at on every record as an ISO-8601 timestamp (e.g. 2026-01-31T09:30:00+00:00) and advance it on every change.",
  check: ({ entity, raw, recordId: id }) => {
    if (!INCREMENTAL.includes(entity) || comparedRaw(entity, raw) !== null) return null;
    const field = entity === "events" ? "updated_at/created_at" : "updated_at";
    return `record ${id}: ${field} is ${JSON.stringify(raw["updated_at"] ?? null)}, not a timestamp the service reads: the record never advances the watermark and its changes drop out of incremental sync; send e.g. 2026-01-31T09:30:00+00:00`;
  },
});

/** Timestamp fields (other than the watermark's) that will be stored as null. */
const TIMESTAMP_FIELDS: Partial<Record<SyncEntity, readonly string[]>> = {
  contacts: ["created_at"],
  leads: ["created_at", "closed_at"],
  tasks: ["due_at", "completed_at"],
  calls: ["created_at"],
  events: ["created_at", "updated_at"],
};

export const recordTimestampFormat = rule<RecordObservation>({
  id: "record.timestamp-format",
  severity: "warning",
  spec: "Resources > Conventions (timestamps)",
  fix: "Send timestamps as <YYYY-MM-DD>T<HH:MM:SS>+<HH:MM>, with Z, or as a bare date.",
  check: ({ entity, raw, recordId: id }) => {
    const field = TIMESTAMP_FIELDS[entity]?.find((name) => raw[name] !== undefined && raw[name] !== null && parseTimestamp(raw[name]) === null);
    return field === undefined
      ? null
      : `record ${id}: ${field} is ${JSON.stringify(raw[field])}, which the service stores as null: send <YYYY-MM-DD>T<HH:MM:SS>+<HH:MM>, Z, or a bare date`;
  },
});

/** The first field (top level, or one level down: utm, stages) whose text the schema cut short. */
function truncatedField(raw: unknown, output: unknown, prefix = ""): string | null {
  if (Array.isArray(raw) && Array.isArray(output)) {
    for (const [i, item] of output.entries()) {
      const found = prefix === "" ? null : truncatedField(raw[i], item, `${prefix}[${i}].`);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isPlainObject(raw) || !isPlainObject(output)) return null;
  for (const [key, value] of Object.entries(output)) {
    const original = raw[key];
    // A cut keeps the start; a normalised value (a timestamp) is not a prefix of what came.
    // Lengths first: most values are kept whole, and counting code points walks both strings.
    const cut =
      typeof value === "string" &&
      typeof original === "string" &&
      value.length < original.length &&
      original.startsWith(value) &&
      codePointLength(value) < codePointLength(original);
    if (cut) return `${prefix}${key}`;
    if (prefix === "" && key !== "raw" && (Array.isArray(value) || isPlainObject(value))) {
      const found = truncatedField(original, value, Array.isArray(value) ? key : `${key}.`);
      if (found !== null) return found;
    }
  }
  return null;
}

/** Text over its maximum is cut silently; the rest of it is lost. Decided by comparing what the schema keeps. */
export const recordTextTruncated = rule<RecordObservation>({
  id: "record.text-truncated",
  severity: "warning",
  spec: "Resources > Conventions (text fields); Limits (field lengths)",
  fix: "Keep text within the spec's field length limits, or accept that the rest is cut.",
  check: ({ raw, output, recordId: id }) => {
    const field = output === null ? null : truncatedField(raw, output);
    return field === null
      ? null
      : `record ${id}: ${field} is longer than the service keeps and is cut short: shorten it at the source or accept the cut (limits in the spec's Limits section)`;
  },
});

/*
 * Silent rules only the sync reports: it accepts the record but stores less
 * than the source meant, and every run counts them (run findings).
 */

/** A task with neither lead_id nor contact_id is accepted and linked to nothing. */
export const taskUnlinked = rule<RecordObservation>({
  id: "task.unlinked",
  severity: "warning",
  spec: "Resources > Task (Association)",
  fix: "Send the lead_id or contact_id each task belongs to.",
  check: ({ entity, raw, invalid, recordId: id }) =>
    entity === "tasks" && invalid === null && !raw["lead_id"] && !raw["contact_id"]
      ? `record ${id}: a task with neither lead_id nor contact_id is stored linked to nothing and appears in no report; send the lead_id or contact_id it belongs to`
      : null,
});

/** A call direction other than exactly `in` or `out` (null and omitted too) is stored as `out`. */
export const callDirectionDefaulted = rule<RecordObservation>({
  id: "call.direction-defaulted",
  severity: "warning",
  spec: "Resources > Call (direction)",
  fix: "Send direction as exactly in or out.",
  check: ({ entity, raw, invalid, recordId: id }) =>
    entity === "calls" && invalid === null && raw["direction"] !== "in" && raw["direction"] !== "out"
      ? `record ${id}: direction is ${JSON.stringify(raw["direction"] ?? null)}, stored as out; send exactly in or out`
      : null,
});

/** custom_fields that is not an object (an array, a string, a number, a boolean) is stored as null. */
export const recordCustomFieldsObject = rule<RecordObservation>({
  id: "record.custom-fields-object",
  severity: "warning",
  spec: "Resources > Contact, Lead (custom_fields)",
  fix: "Send custom_fields as a flat JSON object of name to value, or null.",
  check: ({ entity, raw, invalid, recordId: id }) => {
    const fields = raw["custom_fields"];
    if ((entity !== "contacts" && entity !== "leads") || invalid !== null || fields === undefined || fields === null || isPlainObject(fields)) return null;
    return `record ${id}: custom_fields is ${Array.isArray(fields) ? "an array" : `a ${typeof fields}`}, not an object, and is stored as null; send a flat JSON object of name to value`;
  },
});

/**
 * A compared timestamp later than the service's clock plus the allowance: a
 * source clock gone wrong or a placeholder date. The record is stored as sent
 * but does not move the watermark, so later runs still ask for today's changes.
 */
export const recordUpdatedAtFuture = rule<RecordObservation>({
  id: "record.updated-at-future",
  severity: "warning",
  spec: "Resources > Conventions (timestamps); Incremental rules 3, 4",
  fix: "Stamp updated_at from a correct clock when the record changes (UTC or with its offset); never a date in the future or a placeholder such as 9999-12-31.",
  check: ({ entity, raw, invalid, recordId: id, latestTrusted }) => {
    if (latestTrusted === undefined || invalid !== null || !INCREMENTAL.includes(entity)) return null;
    const compared = comparedRaw(entity, raw);
    if (compared === null || !isPastPresent(compared, latestTrusted)) return null;
    const field = entity === "events" && parseTimestamp(raw["updated_at"]) === null ? "created_at" : "updated_at";
    return `record ${id}: ${field} is ${JSON.stringify(raw[field])}, later than the service's clock plus ${CLOCK_SKEW_ALLOWANCE_SECONDS / 60} minutes (${latestTrusted}): stored as sent, but it does not move the watermark; stamp updated_at from a correct clock`;
  },
});

/** The record rules the kit runs on every record it crawls. */
export const RECORD_RULES = [...SPECIFIC, recordFields, recordUpdatedAt, recordTimestampFormat, recordTextTruncated];

/**
 * What the sync alone reports: the spec accepts these records, so the kit
 * does not fail or warn a source for them, but each run counts them.
 */
export const SYNC_ONLY_RECORD_RULES = [recordCustomFieldsObject, taskUnlinked, callDirectionDefaulted, recordUpdatedAtFuture];

/** The record rules a record the sync accepts can still break: what every sync counts. */
export const SILENT_RECORD_RULES = [recordUpdatedAt, recordTimestampFormat, recordTextTruncated, ...SYNC_ONLY_RECORD_RULES];
