/**
 * Every number the spec fixes, named once. Field length limits live in
 * TEXT_LIMITS so that the schemas and the tests read the same table.
 */

/** `limit` sent on every source request; the source's echo is ignored. */
export const PAGE_SIZE = 100;
/** Pages per entity per run; the 5001st page fails the entity. */
export const MAX_PAGES_PER_ENTITY = 5000;
/** Characters of a failure detail that are kept (source error bodies, entity errors). */
export const ERROR_DETAIL_MAX_CHARS = 300;
/** Waits before retry 1..5 on 429, 5xx, timeouts and connection errors. */
export const RETRY_BACKOFF_SECONDS = [1, 2, 4, 8, 16] as const;
export const MAX_RETRIES = RETRY_BACKOFF_SECONDS.length;
/** Retry-After is whole seconds, floored to this. */
export const MIN_RETRY_AFTER_SECONDS = 1;
/**
 * Longest Retry-After the service waits. A source asking for more fails the
 * entity at once (as throttling does after 5 retries), so one page can never
 * hold its connection's run for long: 5 waits of at most this are 25 minutes.
 */
export const MAX_RETRY_AFTER_SECONDS = 300;
/** Requests per second when a connection does not declare one. */
export const DEFAULT_RATE_LIMIT = 5;

/** Maximum length in characters (Unicode code points) of each text field of the spec. */
export const TEXT_LIMITS = {
  /** any `id`; over-length fails the page */
  id: 255,
  /** lead_id / contact_id on calls, tasks and events: truncated */
  reference: 255,
  name: 255,
  email: 255,
  leadSource: 255,
  utmShort: 255,
  utmLong: 500,
  userRole: 100,
  eventType: 100,
  contactPhone: 50,
  callPhone: 32,
  stageColor: 20,
  lossReason: 500,
} as const;

/*
 * Numbers the spec leaves open and the service chooses (docs/design.md, "Decisions the spec leaves open").
 */

/** Whole request budget, headers and body, for one source page. Well under the page task's Lambda timeout. */
export const SOURCE_REQUEST_TIMEOUT_MS = 20_000;
/** Largest source response body read; a bigger one fails the page instead of exhausting Lambda memory. */
export const SOURCE_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/**
 * Deepest nesting of objects and arrays a source record may have, the record
 * itself being level 1 (`{"custom_fields": {"a": [1]}}` is 3 levels). Documents
 * are stored as JSON strings, so DynamoDB's 32-level limit on maps does not
 * apply; 64 is far beyond what a CRM record means (custom fields are a flat map,
 * an event's before and after values a few levels) and far below where a
 * recursive reader on the way (valibot, JSON.stringify, the console) runs out of
 * stack. A deeper record fails its page (rule `record.depth`).
 */
export const MAX_RECORD_DEPTH = 64;
/**
 * Digits an exponent may give a price's whole part (a double reaches 1e308,
 * 309 digits): "1e309" fails its page as before, while digits written out are
 * kept exactly whatever their count. Bounds what a few characters can make
 * the service write ("1e99999999").
 */
export const PRICE_EXPONENT_MAX_DIGITS = 309;
/** A rate_limit above this is refused: one limiter item keeps one start time per request per second. */
export const MAX_RATE_LIMIT = 1000;

/**
 * Incremental entities restart from their watermark minus this margin: a
 * source that commits a record a little after stamping its updated_at would
 * otherwise hide it behind a watermark already past it. Re-sent records are
 * harmless (upsert).
 */
export const WATERMARK_SAFETY_MARGIN_SECONDS = 120;
/**
 * How far past the service's own clock a compared timestamp may be and still
 * move the watermark: a source's clock a little fast (NTP drift, a server in
 * another zone writing local time as UTC for minutes) is tolerated; anything
 * later is a clock gone wrong or a placeholder date (9999-12-31), stored as
 * sent but never trusted as "the newest change", so one such record cannot
 * make every later run ask for nothing. 10 minutes: far above ordinary drift,
 * far below a run's schedule interval.
 */
export const CLOCK_SKEW_ALLOWANCE_SECONDS = 600;
/**
 * Page tasks per Standard execution before the run continues in a fresh one.
 * Bounds the history under Step Functions' 25,000 events even if every page
 * takes all its retries (see test/statemachine/history-bound.test.ts).
 */
export const PAGE_TASKS_PER_EXECUTION = 400;
/**
 * Page tasks per segment of the Express child (statemachine/sync-pages.asl.json)
 * before it hands the run back to its Standard parent. Keeps a segment far
 * inside Express's 5 minutes (25 pages at 2 s each: 50 s; a slower source ends
 * it by SEGMENT_PAGE_START_SECONDS) while the parent's
 * 2 transitions per segment cost 0.08 per page (docs/cost.md). Divides
 * PAGE_TASKS_PER_EXECUTION.
 */
export const PAGE_TASKS_PER_SEGMENT = 25;
/**
 * Express's longest execution ("Step Functions service quotas": an Express
 * workflow runs at most 5 minutes): the page loop's TimeoutSeconds
 * (statemachine/sync-pages.asl.json).
 */
export const EXPRESS_EXECUTION_SECONDS = 300;
/**
 * What the retriers inside the Express child may add to any one Task (their
 * longest waits summed). Longer waits (429 back-offs, our own service busy
 * for minutes) belong to the Standard parent, which can wait for a year.
 */
export const CHILD_TASK_RETRY_WAIT_SECONDS = 240;
/**
 * A segment starts no page task after this many seconds: it ends by elapsed
 * time as well as by PAGE_TASKS_PER_SEGMENT. The page in flight then still has
 * EXPRESS_EXECUTION_SECONDS less this, 200 s, for its six attempts at the
 * source's SOURCE_REQUEST_TIMEOUT_MS with PAGE_ATTEMPT_OWN_SECONDS of our own
 * work each, and the spec's 5xx ladder (1 + 2 + 4 + 8 + 16 s): 175 s
 * (test/statemachine/express-page-loop.unit.test.ts). No early request of a
 * next page leaves after it (sync-page.ts): that page is the next segment's.
 */
export const SEGMENT_PAGE_START_SECONDS = 100;
/** One page attempt's own work besides the source request: the connection read, the limiter's slot, the commit. */
export const PAGE_ATTEMPT_OWN_SECONDS = 4;
/**
 * The largest state, in UTF-8 bytes, a page task returns with the next page's
 * early answer in it (lambdas/domain/sync/fetch-ahead.ts). Step Functions caps
 * a state at 256 KiB; 32 KiB are left for what a Catch adds (the error).
 */
export const AHEAD_STATE_MAX_BYTES = 224 * 1024;
/** A run's lock lease; extended by every page. A run that died frees its connection after this. */
export const RUN_LEASE_SECONDS = 15 * 60;

/**
 * A rate-limit slot whose request has not left this long after the start
 * recorded for it is not used: another is taken, so no request reaches the
 * source long after its recorded start (see lambdas/adapters/dynamodb/rate-limit/).
 */
export const SLOT_LATE_MS = 10;
/** Rate-limit slots in a row that may go stale before a request fails (RateLimitSlotsStaleError, retried). */
export const MAX_STALE_SLOTS = 10;

/** Record ids a run finding keeps as examples (issue 22: at most 5). */
export const FINDING_SAMPLE_IDS = 5;
