import * as v from "valibot";

const nonEmpty = v.pipe(v.string(), v.minLength(1));

/** Which run: what the state machine's input, its states and the schedule tick carry to name one run of one connection. */
export const RunReferenceSchema = v.object({
  business_account_id: nonEmpty,
  connection_id: nonEmpty,
  run_id: nonEmpty,
});
export type RunReference = v.InferOutput<typeof RunReferenceSchema>;
