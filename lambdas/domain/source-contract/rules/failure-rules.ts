import { MAX_RETRIES, MAX_RETRY_AFTER_SECONDS, SOURCE_MAX_RESPONSE_BYTES, SOURCE_REQUEST_TIMEOUT_MS } from "../../core/limits";
import type { RuleInfo } from "../rule";

/*
 * Why an entity of a sync failed, where no rule of the kit already says it
 * (a repeated page, the page cap, a required endpoint, a record's field each
 * keep their kit id). A failed entity row names one of these or a kit rule,
 * with its fix; the kit does not check these (a sync meets them).
 */

const RETRIES = `${MAX_RETRIES} retries (1, 2, 4, 8, 16 s)`;
const MIB = SOURCE_MAX_RESPONSE_BYTES / (1024 * 1024);

/** 401 on a sync's request: the token the connection holds is wrong, revoked or expired. */
export const authTokenAccepted: RuleInfo = {
  id: "auth.token-accepted",
  severity: "error",
  spec: "Authentication > Source API 2-4; Errors > Status codes (401)",
  fix: "Issue a new read-only token, set it as the connection's token, then run the sync again.",
};

/** Not connected at all through the retries: connection refused, DNS, an unreachable host, TLS. */
export const sourceReachable: RuleInfo = {
  id: "source.reachable",
  severity: "error",
  spec: "Errors > Status codes (request timeout, 5xx); Limits (retries)",
  fix: "Make the source API answer at base_url from the internet (DNS name, TLS certificate, firewall, server running), or correct base_url.",
};

/** Every try of the page outlived the service's deadline. */
export const sourceAnswersInTime: RuleInfo = {
  id: "source.answers-in-time",
  severity: "error",
  spec: "Errors > Status codes (request timeout); Limits (retries)",
  fix: `Answer each page, headers and body, within ${SOURCE_REQUEST_TIMEOUT_MS / 1000} s (index the updated_at filter and order; serve at most limit records).`,
};

/** 5xx, or a connection the source broke off, on every try of the page. */
export const sourceServerErrorsRecover: RuleInfo = {
  id: "source.server-errors-recover",
  severity: "error",
  spec: "Errors > Status codes (5xx); Limits (retries)",
  fix: `Let trouble at the source (a 5xx, a connection it breaks off) clear within the service's ${RETRIES}: answer 502, 503 or 504 only while it lasts, and 200 once it has passed.`,
};

/** Another 4xx (400, 403, 422, ...): no retry. */
export const sourceStatus200: RuleInfo = {
  id: "source.status-200",
  severity: "error",
  spec: "Endpoints > Source API; Errors > Status codes (other 4xx)",
  fix: "Answer 200 to the service's GET with the Bearer token, limit, page and updated_since (grant the token read access to every endpoint).",
};

/** A 3xx: never followed (the token must not leave base_url's host). */
export const sourceNoRedirect: RuleInfo = {
  id: "source.no-redirect",
  severity: "error",
  spec: "Versioning (base_url); Errors > Status codes",
  fix: "Set base_url to the final address the source answers at: the service never follows a redirect.",
};

/** base_url the service may not call: a private or reserved address, a scheme other than http(s), credentials in it. */
export const sourceBaseUrlAllowed: RuleInfo = {
  id: "source.base-url-allowed",
  severity: "error",
  spec: "Resources > Connection (base_url)",
  fix: "Give a base_url over https (or http) whose host resolves to a public internet address, without a user name or password.",
};

/** A 200 body over what the service reads. */
export const envelopeSize: RuleInfo = {
  id: "envelope.size",
  severity: "error",
  spec: "Resources > Envelope; Source API > Paging rules 1",
  fix: `Keep each page's body under ${MIB} MiB: at most limit (100) records a page, without data the spec does not ask for.`,
};

/**
 * One record too large to store with its page. Records are stored whole at any size a page body may hold
 * (docs/design.md), so envelope.size refuses the page first; this names the store's last bound.
 */
export const recordStorableSize: RuleInfo = {
  id: "record.storable-size",
  severity: "error",
  spec: "Sync order and transaction scope (a page is written as one transaction)",
  fix: `Keep each record's JSON within the page body limit (${MIB} MiB); move large attachments out of the record and send a link instead.`,
};

/** Retry-After longer than the service waits. */
export const rateRetryAfterMax: RuleInfo = {
  id: "rate.retry-after-max",
  severity: "error",
  spec: "Errors > Status codes (429)",
  fix: `Send Retry-After of at most ${MAX_RETRY_AFTER_SECONDS} seconds, or raise the source's own limit to the declared rate_limit.`,
};

/** Our own store or rate limiter stayed busy through the retries: nothing is wrong at the source. */
export const serviceAvailable: RuleInfo = {
  id: "service.available",
  severity: "error",
  spec: "none: the service's own store",
  fix: "Nothing to change at the source: the service's own store was busy; the next run resumes the entity from its watermark.",
};

/** Any other failure of ours: a task that outlived its time-out, a run that stopped, a bug. */
export const serviceCompletes: RuleInfo = {
  id: "service.completes",
  severity: "error",
  spec: "none: the service's own failure",
  fix: "Nothing to change at the source: the service failed on its side and its operators are alerted; the next run resumes the entity.",
};

/** The stored token no longer decrypts for this connection. */
export const connectionTokenReadable: RuleInfo = {
  id: "connection.token-readable",
  severity: "error",
  spec: "Resources > Connection (token stored encrypted)",
  fix: "Set the connection's token again: the stored one can no longer be read.",
};

/** The connection was deleted while its run was under way. */
export const connectionExists: RuleInfo = {
  id: "connection.exists",
  severity: "error",
  spec: "Endpoints > Onboarding API",
  fix: "Nothing to change: the connection was deleted while the run was under way, so the run stopped.",
};

/** sync_since (or a reset) moved the watermarks while the run was under way. */
export const connectionSyncSinceStable: RuleInfo = {
  id: "connection.sync-since-stable",
  severity: "error",
  spec: "Onboarding API > PATCH (sync_since); Incremental rules 4",
  fix: "Nothing to change: the start date or the watermarks were reset during the run; the next run reads every entity from the new date.",
};

/** Failures only a sync meets, in the order docs/rules.md lists them. */
export const SYNC_FAILURE_RULES: readonly RuleInfo[] = [
  authTokenAccepted,
  sourceReachable,
  sourceAnswersInTime,
  sourceServerErrorsRecover,
  sourceStatus200,
  sourceNoRedirect,
  sourceBaseUrlAllowed,
  envelopeSize,
  recordStorableSize,
  rateRetryAfterMax,
  serviceAvailable,
  serviceCompletes,
  connectionTokenReadable,
  connectionExists,
  connectionSyncSinceStable,
];
