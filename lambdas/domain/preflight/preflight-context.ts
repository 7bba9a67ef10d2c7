import type { SyncEntity } from "../core/entities";
import { PAGE_SIZE } from "../core/limits";
import { ENTITY_CATALOG } from "../source-contract/entity-catalog";
import { isPlainObject } from "../records/fields/object";
import type { FindingCollector } from "./findings";
import { comparedRaw } from "../source-contract/rules/record-rules";
import type { SourceResponse } from "../source-contract/source-response";

/** What each stage of a run shares: the findings, and GETs that check what every answer must keep. */
export interface PreflightContext {
  readonly findings: FindingCollector;
  /** Pages per endpoint, at most. */
  readonly maxPages: number;
  /** A rate-limited GET at `endpoint`; `authorization` defaults to the Bearer token, null sends none. */
  get(endpoint: string, url: URL, authorization?: string | null): Promise<SourceResponse>;
  urlOf(path: string, params: Readonly<Record<string, string | number>>): URL;
  readonly onProgress?: (progress: { readonly endpoint: string; readonly page: number }) => void;
}

/** Early enough to select every record on the crawl, in the form the service sends (its first run starts at sync_since). */
export const FULL_CRAWL_SINCE = "1970-01-01T00:00:00+00:00";

/** The query of page `page` of a crawl, as the service sends it. */
export function crawlParams(entity: SyncEntity, page: number): Record<string, string | number> {
  return { limit: PAGE_SIZE, page, ...(ENTITY_CATALOG[entity].incremental ? { updated_since: FULL_CRAWL_SINCE } : {}) };
}

/** The page's records when the body is an envelope with a data array, else null; has_more read as the sync reads it. */
export function pageOf(response: SourceResponse): { data: unknown[]; hasMore: boolean } | null {
  if (response.status !== 200 || !isPlainObject(response.json)) return null;
  const { data, has_more: hasMore } = response.json;
  return Array.isArray(data) ? { data, hasMore: hasMore === true } : null;
}

/** The record's id, or `#<index>` in its page when it has none (as the sync names it). */
export function idOf(raw: unknown, index: number): string {
  const id = isPlainObject(raw) ? raw["id"] : undefined;
  return typeof id === "string" && id.length > 0 ? id : `#${index}`;
}

/** The instant an incremental record is compared by, in epoch ms; null when unreadable. */
export function instantOf(entity: SyncEntity, raw: unknown): number | null {
  const at = comparedRaw(entity, isPlainObject(raw) ? raw : {});
  return at === null ? null : Date.parse(at);
}
