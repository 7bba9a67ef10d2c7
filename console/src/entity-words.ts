/** What an owner calls each kind of record the sync reads (never the API's collection names). */
const ENTITY_WORDS: Readonly<Record<string, string>> = {
  pipelines: "Pipelines",
  stages: "Stages",
  users: "Users",
  contacts: "Contacts",
  leads: "Leads",
  tasks: "Tasks",
  calls: "Calls",
  events: "Lead events",
  loss_reasons: "Loss reasons",
};

/** "Leads", "Lead events"; an unknown name as it is. */
export function entityWords(entity: string): string {
  return ENTITY_WORDS[entity] ?? entity;
}

/** In a sentence: "leads", "lead events". */
export function entityInSentence(entity: string): string {
  return entityWords(entity).toLowerCase();
}

/** "Leads", "Leads and contacts", "Pipelines, users and leads". */
export function entityList(entities: readonly string[]): string {
  const words = entities.map((entity, index) => (index === 0 ? entityWords(entity) : entityInSentence(entity)));
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** A run's or an entity's status, in words: a pending entity is waiting its turn. */
const STATUS_WORDS: Readonly<Record<string, string>> = { pending: "waiting", running: "running", succeeded: "succeeded", failed: "failed", cancelled: "cancelled" };

export function statusWords(status: string): string {
  return STATUS_WORDS[status] ?? status;
}
