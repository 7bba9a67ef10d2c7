import type { EntityProgress } from "./api";
import { h } from "./dom";
import { entityList } from "./entity-words";
import { failureNote } from "./failure-note";
import { titledCard } from "./titled-card";

/**
 * What to do, first on the Status section: the failed entities of the last finished run, those that failed for one
 * reason together (a refused token fails every entity alike), each reason with its fix and rule. Null when none failed.
 */
export function problemsCard(connectionId: string, failed: readonly EntityProgress[]): HTMLElement | null {
  const groups = new Map<string, EntityProgress[]>();
  for (const entity of failed) {
    if (entity.failure === null) continue;
    const key = `${entity.failure.rule}\n${entity.failure.detail}\n${entity.failure.fix}`;
    groups.set(key, [...(groups.get(key) ?? []), entity]);
  }
  if (groups.size === 0) return null;
  return titledCard(
    { id: "problems-title", title: "What went wrong, and what to do", className: "problems" },
    h(
      "ul",
      { class: "failures" },
      [...groups.values()].map((entities) =>
        h(
          "li",
          { "data-entities": entities.map((entity) => entity.entity).join(" ") },
          h("h3", null, `${entityList(entities.map((entity) => entity.entity))} failed`),
          failureNote(connectionId, entities[0]!.entity, entities[0]!.failure!),
        ),
      ),
    ),
  );
}
