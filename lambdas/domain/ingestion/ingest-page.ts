import { fetchAndPrepare, logCommitted, pageProgress, pageResult, type FetchPageDeps, type PageInput, type PageResult } from "./fetch-and-prepare";
import type { SourceConnection } from "../core/ports/source-client";

/**
 * A sync's page: fetch and prepare it (./fetch-and-prepare.ts), then write its
 * records with its watermark and its listing. Every Step Functions page task
 * of a sync, the local runtime and the tests call this one function; an
 * audit's page is ../audits/audit-page.ts.
 */
export async function ingestPage(deps: FetchPageDeps, connection: SourceConnection, input: PageInput): Promise<PageResult> {
  const fetched = await fetchAndPrepare(deps, connection, input, { readLeadStages: true });
  const { definition, prepared } = fetched;
  const advances = definition.incremental && prepared.maxCompared !== null && (input.watermark === null || prepared.maxCompared > input.watermark);
  const watermark = advances ? prepared.maxCompared : input.watermark;
  // Read while the page was validated; undefined: the commit reads them itself.
  const leadStages = await fetched.leadStages;
  // Always committed, even with nothing to write: the commit is also the run's fence, lease and progress.
  await deps.store.commitPage({
    connectionId: input.connectionId,
    records: prepared.writes,
    ...(advances && watermark !== null ? { watermark: { entity: input.entity, value: watermark } } : {}),
    lastPage: !fetched.hasMore,
    listing: { hasMore: fetched.hasMore, updatedSince: definition.incremental ? input.updatedSince : null },
    run: pageProgress(input, fetched),
    stageEventType: input.stageEventType?.() ?? null,
    ...(leadStages === undefined ? {} : { leadStages }),
  });
  logCommitted(deps.logger, input, fetched, watermark);
  return pageResult(fetched, watermark);
}
