import { isPlainObject } from "../../records/fields/object";
import { rule } from "../rule";
import type { SourceResponse } from "../source-response";

/** An error answer is JSON with a string `error`, so the failure detail says why. */
export const errorBody = rule<{ readonly response: SourceResponse }>({
  id: "error.body",
  severity: "warning",
  spec: "Errors > Error body (source API)",
  fix: "Answer errors with a JSON body holding a string error: {\"error\": \"what went wrong\"}.",
  check: ({ response }) =>
    response.status < 400 || (response.jsonOk && isPlainObject(response.json) && typeof response.json["error"] === "string")
      ? null
      : `a ${response.status} came without a JSON body holding a string "error": send {"error": "what went wrong"} so the sync's failure detail says why`,
});
