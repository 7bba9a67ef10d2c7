import type { SyncEntity } from "../core/entities";
import { ENTITY_CATALOG } from "../source-contract/entity-catalog";
import type { Crawl } from "./crawl-endpoint";
import { crawlParams, type PreflightContext } from "./preflight-context";
import { referenceStage, referenceUser } from "../source-contract/rules/reference-rules";

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** Stage and user references, only when /pipelines and /users were read whole (else every reference would look dangling). */
export function checkReferences(context: PreflightContext, crawls: ReadonlyMap<SyncEntity, Crawl>): void {
  const pipelines = crawls.get("pipelines");
  const users = crawls.get("users");
  if (!pipelines?.complete || !users?.complete) return;
  const userIds = new Set(users.refs.map((user) => user.id));
  for (const entity of ["contacts", "leads", "tasks", "calls"] as const) {
    const crawl = crawls.get(entity);
    if (crawl === undefined) continue;
    const path = ENTITY_CATALOG[entity].path;
    const request = `GET ${context.urlOf(path, crawlParams(entity, 1)).href}`;
    context.findings.ran(referenceUser, path);
    if (entity === "leads") context.findings.ran(referenceStage, path);
    for (const record of crawl.refs) {
      context.findings.apply(referenceUser, path, { recordId: record.id, userId: record.userId, userIds }, request);
      if (entity !== "leads") continue;
      const lead = { leadId: record.id, pipelineId: text(record.pipelineId), stageId: text(record.stageId), stageKinds: pipelines.stageKinds };
      context.findings.apply(referenceStage, path, lead, request);
    }
  }
}
