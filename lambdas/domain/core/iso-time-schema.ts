import * as v from "valibot";

/**
 * An ISO-8601 UTC time the service wrote itself (`toISOString()`): documented
 * as date-time, not re-checked on read, so a stored value always reads back.
 */
export const IsoTimeSchema = v.pipe(v.string(), v.metadata({ format: "date-time" }));
