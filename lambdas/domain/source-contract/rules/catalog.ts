import type { RuleInfo } from "../rule";
import { missingToken401, wrongToken401 } from "./auth-rules";
import { emptyIs200, optional200Or404, requiredPresent } from "./endpoint-rules";
import { envelopeDataArray, envelopeHasMoreBoolean, envelopeJson, envelopeUtf8 } from "./envelope-rules";
import { errorBody } from "./error-rules";
import { SYNC_FAILURE_RULES } from "./failure-rules";
import { ascending, filtered, inclusive, offsetHonoured } from "./incremental-rules";
import { hasMoreSuccessor, limitHonoured, noDuplicateRecord, noRepeatPage, pageCap } from "./paging-rules";
import { preflightTimeLimit } from "./preflight-rules";
import { QUERY_RULES } from "./query-rules";
import { rateDeclared, rateRetriesExhausted, rateRetryAfter } from "./rate-rules";
import { RECORD_RULES, SYNC_ONLY_RECORD_RULES } from "./record-rules";
import { referenceStage, referenceUser } from "./reference-rules";
import { WEBHOOK_RULES } from "./webhook-rules";

/** Every rule the conformance kit checks, in report order. */
export const KIT_RULES: readonly RuleInfo[] = [
  missingToken401,
  wrongToken401,
  requiredPresent,
  optional200Or404,
  emptyIs200,
  ...QUERY_RULES,
  envelopeJson,
  envelopeUtf8,
  envelopeDataArray,
  envelopeHasMoreBoolean,
  limitHonoured,
  noRepeatPage,
  noDuplicateRecord,
  hasMoreSuccessor,
  pageCap,
  ascending,
  inclusive,
  filtered,
  offsetHonoured,
  ...RECORD_RULES,
  referenceStage,
  referenceUser,
  rateDeclared,
  rateRetryAfter,
  rateRetriesExhausted,
  errorBody,
];

/**
 * The one list of rule ids: the kit's, then those only a sync can see (silent
 * rules its records hit, then why an entity failed), then the service's check's
 * own (its time limit), then the owner's webhook receiver's. Run findings, failed entity rows, record lineage, the
 * quality route and the service's check name rules by these ids.
 */
export const ALL_RULES: readonly RuleInfo[] = [...KIT_RULES, ...SYNC_ONLY_RECORD_RULES, ...SYNC_FAILURE_RULES, preflightTimeLimit, ...WEBHOOK_RULES];

export const RULES_BY_ID: ReadonlyMap<string, RuleInfo> = new Map(ALL_RULES.map((r) => [r.id, r]));
