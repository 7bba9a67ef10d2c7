import { MAX_PAGES_PER_ENTITY, PAGE_SIZE } from "../../core/limits";
import { rule } from "../rule";

/** One page of a crawl, next to the one before it. */
export interface PageObservation {
  readonly page: number;
  readonly ids: readonly string[];
  /** Ids of the page before, null on page 1. */
  readonly previousIds: readonly string[] | null;
  /** Ids served on earlier pages of this crawl, with the page each came on. */
  readonly seen: ReadonlyMap<string, number>;
}

/** No page holds more than the `limit` asked for (always 100). */
export const limitHonoured = rule<PageObservation>({
  id: "paging.limit-honoured",
  severity: "error",
  spec: "Source API > Paging rules 1",
  fix: "Serve at most limit records per page and page by (page - 1) * limit.",
  check: ({ ids }) =>
    ids.length <= PAGE_SIZE
      ? null
      : `a page of limit=${PAGE_SIZE} held ${ids.length} records: serve at most \`limit\` records per page and page by (page - 1) * limit`,
});

/** A page whose ids exactly match the previous page fails the entity. */
export const noRepeatPage = rule<PageObservation>({
  id: "paging.no-repeat-page",
  severity: "error",
  spec: "Source API > Paging rules 3",
  fix: "Honour the 1-based page parameter: page N+1 starts where page N ended.",
  check: ({ page, ids, previousIds }) =>
    previousIds !== null && ids.length > 0 && ids.length === previousIds.length && ids.every((id, i) => id === previousIds[i])
      ? `page ${page} repeated page ${page - 1} exactly: honour the \`page\` parameter (1-based); the service fails the entity`
      : null,
});

/** A record appears on one page of a run, once. */
export const noDuplicateRecord = rule<PageObservation>({
  id: "paging.no-duplicate-record",
  severity: "error",
  spec: "Source API > Paging rules 3",
  fix: "Page over a stable order (timestamp, then id) so that no record moves between pages.",
  check: ({ page, ids, seen }) => {
    const earlier = ids.find((id) => seen.has(id));
    if (earlier !== undefined) {
      return `record ${earlier} came on page ${seen.get(earlier)} and again on page ${page}: page over a stable order (timestamp, then id) so no record moves between pages`;
    }
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    return twice === undefined ? null : `record ${twice} came twice on page ${page}: serve each record once`;
  },
});

/** has_more true promises a next page that holds records. */
export const hasMoreSuccessor = rule<{ readonly page: number; readonly nextStatus: number; readonly nextCount: number; readonly nextHasMore: boolean }>({
  id: "paging.has-more-successor",
  severity: "error",
  spec: "Source API > Paging rules 5",
  fix: "Set has_more true only when a later page holds a record.",
  check: ({ page, nextStatus, nextCount, nextHasMore }) => {
    if (nextStatus !== 200) return `page ${page} said has_more true but page ${page + 1} answered ${nextStatus}: has_more must be false on the last page`;
    return nextCount === 0 && !nextHasMore
      ? `page ${page} said has_more true but page ${page + 1} was empty: set has_more true only when a later page holds a record`
      : null;
  },
});

/** An entity fits in 5000 pages of 100. */
export const pageCap = rule<{ readonly pages: number; readonly hasMore: boolean }>({
  id: "paging.page-cap",
  severity: "error",
  spec: "Source API > Paging rules 4; Limits",
  fix: "Keep each entity within 5000 pages a run, or serve fewer records a run through updated_since.",
  check: ({ pages, hasMore }) =>
    pages >= MAX_PAGES_PER_ENTITY && hasMore
      ? `page ${MAX_PAGES_PER_ENTITY} still said has_more true: the service fails an entity past ${MAX_PAGES_PER_ENTITY} pages; end paging (or serve fewer records per run through updated_since)`
      : null,
});
