import type { SyncEntity } from "../core/entities";
import { entityDefinition } from "../source-contract/entity-catalog";
import { crawlParams, type PreflightContext } from "./preflight-context";
import { queryLimit, queryPage, queryUpdatedSince } from "../source-contract/rules/query-rules";
import type { SourceResponse } from "../source-contract/source-response";

/** Answers that may mean the query itself was refused: a 4xx other than 401, 404 and 429, or a 500. */
export function isRefusal(status: number): boolean {
  return status === 500 || (status >= 400 && status < 500 && status !== 401 && status !== 404 && status !== 429);
}

/**
 * Page 1 as the service sends it was refused: asks again with one parameter
 * left out (and updated_since written with Z), so the finding names the
 * parameter the source cannot take, not only the endpoint that failed.
 */
export async function diagnoseQuery(context: PreflightContext, entity: SyncEntity, first: SourceResponse): Promise<void> {
  const { path, incremental } = entityDefinition(entity);
  const { findings } = context;
  for (const queryRule of incremental ? [queryUpdatedSince, queryLimit, queryPage] : [queryLimit, queryPage]) findings.ran(queryRule, path);
  if (!isRefusal(first.status)) return;
  const params = crawlParams(entity, 1);
  const without = (name: string) => context.get(path, context.urlOf(path, Object.fromEntries(Object.entries(params).filter(([key]) => key !== name))));
  const probe = (response: SourceResponse, name: string, tried: string) => ({
    refusedStatus: first.status,
    withoutStatus: response.status,
    sent: `${name}=${params[name]}`,
    tried,
  });

  if (incremental) {
    const since = String(params["updated_since"]);
    const zForm = since.replace(/\+00:00$/, "Z");
    const zulu = await context.get(path, context.urlOf(path, { ...params, updated_since: zForm }));
    const answered = zulu.status === 200 ? probe(zulu, "updated_since", `updated_since=${zForm}`) : probe(await without("updated_since"), "updated_since", "the same request without updated_since");
    findings.apply(queryUpdatedSince, path, answered, first.request);
  }
  findings.apply(queryLimit, path, probe(await without("limit"), "limit", "the same request without limit"), first.request);
  findings.apply(queryPage, path, probe(await without("page"), "page", "the same request without page"), first.request);
}
