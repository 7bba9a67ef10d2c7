/** One answer of the source, read whole: what the rules check (the kit's transport reads it). */
export interface SourceResponse {
  /** `GET <url>`: what the reports show; the URL never holds the token (it travels in a header). */
  readonly request: string;
  readonly status: number;
  readonly retryAfter: string | null;
  readonly text: string;
  /** The body parsed as JSON, or `undefined` with `jsonOk` false when it is not JSON. */
  readonly json: unknown;
  readonly jsonOk: boolean;
  /** Whether the body was UTF-8; `text` replaces bytes that are not with U+FFFD (the sync refuses such a body). */
  readonly utf8: boolean;
}
