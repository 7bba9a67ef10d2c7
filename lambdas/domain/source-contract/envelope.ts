import * as v from "valibot";
import { SourceHardError } from "../core/errors";
import type { SourcePage } from "../core/ports/source-client";

/**
 * The catalog's ids of the envelope's rules (rules/envelope-rules.ts checks
 * them for the kit and imports this schema, so they are named here, not
 * imported: the folders never import each other in a loop). A unit test
 * checks each is in the catalog.
 */
export const ENVELOPE_RULE_IDS = { json: "envelope.json", dataArray: "envelope.data-array", hasMoreBoolean: "envelope.has-more-boolean" } as const;

// `has_more`: true continues paging; a missing or falsy value ends it. Only JSON's
// falsy values are accepted as "false"; anything else ("true", 1, {}) is a broken envelope.
export const EnvelopeSchema = v.looseObject({
  data: v.nullish(v.array(v.unknown(), "envelope field data is not an array")),
  has_more: v.nullish(
    v.union([v.boolean(), v.literal(0), v.literal("")], "envelope field has_more is not a boolean"),
  ),
});

/** Reads one parsed 200 body as the spec's envelope; `data` items stay unvalidated. */
export function parseEnvelope(body: unknown): SourcePage {
  // valibot's object schemas accept arrays, so reject them here.
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new SourceHardError("response body is not a JSON object", { rule: ENVELOPE_RULE_IDS.json });
  }
  const result = v.safeParse(EnvelopeSchema, body);
  if (!result.success) {
    const rule = result.issues[0].path?.[0]?.key === "data" ? ENVELOPE_RULE_IDS.dataArray : ENVELOPE_RULE_IDS.hasMoreBoolean;
    throw new SourceHardError(result.issues[0].message, { rule });
  }
  return { data: result.output.data ?? [], hasMore: result.output.has_more === true };
}
