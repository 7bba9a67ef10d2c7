import { rule } from "../rule";
import type { SourceResponse } from "../source-response";

const SPEC = "Authentication > Source API 2";

/** The source rejects a request with no Authorization header. */
export const missingToken401 = rule<{ readonly response: SourceResponse }>({
  id: "auth.missing-token-401",
  severity: "error",
  spec: SPEC,
  fix: "Reject every request without the exact Bearer token with 401, on every endpoint.",
  check: ({ response }) =>
    response.status === 401
      ? null
      : `a request without Authorization got ${response.status}, not 401: reject every request that does not carry the exact Bearer token`,
});

/** A one-character change anywhere in the token is a 401: tried at several positions. */
export const wrongToken401 = rule<{ readonly responses: readonly { readonly position: number; readonly response: SourceResponse }[] }>({
  id: "auth.wrong-token-401",
  severity: "error",
  spec: SPEC,
  fix: "Compare the whole token exactly (not a prefix or a pattern) and answer 401 to any other.",
  check: ({ responses }) => {
    const accepted = responses.filter(({ response }) => response.status !== 401);
    if (accepted.length === 0) return null;
    const where = accepted.map(({ position, response }) => `character ${position + 1} changed: ${response.status}`).join("; ");
    return `a token differing in one character was not rejected with 401 (${where}): compare the whole token exactly, not a prefix or a pattern`;
  },
});
