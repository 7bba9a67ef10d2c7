import * as v from "valibot";
import { SourceHardError } from "../core/errors";
import type { SourcePage } from "../core/ports/source-client";

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
    throw new SourceHardError("response body is not a JSON object");
  }
  const result = v.safeParse(EnvelopeSchema, body);
  if (!result.success) throw new SourceHardError(result.issues[0].message);
  return { data: result.output.data ?? [], hasMore: result.output.has_more === true };
}
