import * as v from "valibot";
import { isPlainObject } from "../../records/fields/object";
import { EnvelopeSchema } from "../envelope";
import { rule } from "../rule";
import type { SourceResponse } from "../source-response";

const SPEC = "Resources > Envelope";

/** A 200 body is one JSON object. */
export const envelopeJson = rule<{ readonly response: SourceResponse }>({
  id: "envelope.json",
  severity: "error",
  spec: SPEC,
  fix: "Send the envelope as a JSON object: {\"data\": [...], \"has_more\": true or false}.",
  check: ({ response }) => {
    if (!response.jsonOk) return `the 200 body is not JSON (starts ${JSON.stringify(response.text.slice(0, 40))}): send the envelope as application/json`;
    return isPlainObject(response.json) ? null : "the 200 body is JSON but not an object: send {\"data\": [...], \"has_more\": ...}";
  },
});

/** A 200 body is UTF-8: the sync refuses any other bytes rather than guess, so two ids never merge. */
export const envelopeUtf8 = rule<{ readonly response: SourceResponse }>({
  id: "envelope.utf8",
  severity: "error",
  spec: SPEC,
  fix: "Encode every body as UTF-8 (JSON's encoding), never Latin-1 or another legacy encoding.",
  check: ({ response }) => {
    if (response.utf8) return null;
    const at = response.text.indexOf("\ufffd");
    return `the 200 body is not UTF-8 (near ${JSON.stringify(response.text.slice(Math.max(0, at - 30), at))}): the service fails the page rather than replace the bytes; send UTF-8`;
  },
});

/** `data` is an array; the sync's own envelope schema decides. */
export const envelopeDataArray = rule<{ readonly body: Record<string, unknown> }>({
  id: "envelope.data-array",
  severity: "error",
  spec: SPEC,
  fix: "Send the page's records as a JSON array in data ([] when none).",
  check: ({ body }) => {
    const result = v.safeParse(EnvelopeSchema, body);
    const broken = result.issues?.some((issue) => issue.path?.[0]?.key === "data");
    return broken ? `"data" is ${JSON.stringify(body["data"])?.slice(0, 40)}: send the page's records as a JSON array ([] when none)` : null;
  },
});

/**
 * `has_more` is a JSON boolean. The sync fails a page whose has_more is not
 * boolean-like and silently stops at a missing one: both lose records.
 */
export const envelopeHasMoreBoolean = rule<{ readonly body: Record<string, unknown> }>({
  id: "envelope.has-more-boolean",
  severity: "error",
  spec: SPEC,
  fix: "Send has_more as the JSON boolean true or false on every page.",
  check: ({ body }) => {
    const hasMore = body["has_more"];
    if (typeof hasMore === "boolean") return null;
    if (hasMore === undefined) return "\"has_more\" is missing: the service reads that as the last page and stops; send true or false on every page";
    return `"has_more" is ${JSON.stringify(hasMore)}: send the JSON boolean true or false`;
  },
});
