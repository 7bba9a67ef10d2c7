import { timeOf } from "./time";

type Doc = Readonly<Record<string, unknown>>;

/** Names to show in place of ids: pipelines, stages (by pipeline and id) and users, as stored. */
export interface Lookups {
  readonly pipelines: ReadonlyMap<string, string>;
  readonly stages: ReadonlyMap<string, string>;
  readonly users: ReadonlyMap<string, string>;
}

export const stageKey = (pipelineId: unknown, stageId: unknown) => `${String(pipelineId)}\n${String(stageId)}`;

const text = (value: unknown): string => (value === null || value === undefined || value === "" ? "—" : String(value));
const named = (names: ReadonlyMap<string, string>, id: unknown): string => (typeof id === "string" ? (names.get(id) ?? id) : "—");
const when = (value: unknown): Node | string => (typeof value === "string" ? timeOf(value) : "—");
const yes = (value: unknown): string => (value === true ? "yes" : "no");
const amount = (value: unknown): string => (typeof value === "number" || typeof value === "string" ? BigInt(value).toLocaleString("en-US") : "—");

export interface Column {
  readonly label: string;
  readonly cell: (record: Doc, lookups: Lookups) => Node | string;
  /** Right-aligned (a number). */
  readonly numeric?: boolean;
}

const updated: Column = { label: "Updated", cell: (record) => when(record["updated_at"] ?? record["created_at"]) };
const owner: Column = { label: "Responsible", cell: (record, lookups) => named(lookups.users, record["responsible_user_id"]) };
const linkedTo: Column = { label: "Linked to", cell: (record) => (record["lead_id"] ? `lead ${String(record["lead_id"])}` : record["contact_id"] ? `contact ${String(record["contact_id"])}` : "nothing") };

/** The columns of each kind of record, after its id: what an owner reads to tell records apart. */
export const RECORD_COLUMNS: Readonly<Record<string, readonly Column[]>> = {
  pipelines: [
    { label: "Name", cell: (record) => text(record["name"]) },
    { label: "Order", cell: (record) => text(record["sort"]), numeric: true },
    { label: "Archived", cell: (record) => yes(record["is_archived"]) },
  ],
  stages: [
    { label: "Name", cell: (record) => text(record["name"]) },
    { label: "Pipeline", cell: (record, lookups) => named(lookups.pipelines, record["pipeline_id"]) },
    { label: "Kind", cell: (record) => text(record["kind"]) },
    { label: "Order", cell: (record) => text(record["sort"]), numeric: true },
  ],
  users: [
    { label: "Name", cell: (record) => text(record["name"]) },
    { label: "Email", cell: (record) => text(record["email"]) },
    { label: "Role", cell: (record) => text(record["role"]) },
    { label: "Active", cell: (record) => yes(record["is_active"]) },
  ],
  contacts: [{ label: "Name", cell: (record) => text(record["name"]) }, { label: "Email", cell: (record) => text(record["email"]) }, { label: "Phone", cell: (record) => text(record["phone"]) }, owner, updated],
  leads: [
    { label: "Name", cell: (record) => text(record["name"]) },
    { label: "Stage", cell: (record, lookups) => lookups.stages.get(stageKey(record["pipeline_id"], record["stage_id"])) ?? text(record["stage_id"]) },
    { label: "Pipeline", cell: (record, lookups) => named(lookups.pipelines, record["pipeline_id"]) },
    { label: "Price", cell: (record) => amount(record["price"]), numeric: true },
    owner,
    { label: "Won or lost", cell: (record) => (record["is_deleted"] === true ? "deleted" : record["is_won"] === true ? "won" : record["is_lost"] === true ? "lost" : "open") },
    updated,
  ],
  tasks: [{ label: "Text", cell: (record) => text(record["text"]) }, linkedTo, owner, { label: "Due", cell: (record) => when(record["due_at"]) }, { label: "Done", cell: (record) => yes(record["is_completed"]) }, updated],
  calls: [
    { label: "Direction", cell: (record) => (record["direction"] === "in" ? "incoming" : "outgoing") },
    { label: "Seconds", cell: (record) => text(record["duration_seconds"]), numeric: true },
    linkedTo,
    owner,
    { label: "When", cell: (record) => when(record["created_at"]) },
    updated,
  ],
  events: [{ label: "Type", cell: (record) => text(record["type"]) }, { label: "Lead", cell: (record) => text(record["lead_id"]) }, { label: "When", cell: (record) => when(record["created_at"]) }],
  loss_reasons: [{ label: "Reason", cell: (record) => text(record["text"]) }],
};

/** Which lookups a kind of record's columns read (each is one small list). */
export const LOOKUPS_OF: Readonly<Record<string, readonly ("pipelines" | "stages" | "users")[]>> = {
  stages: ["pipelines"],
  contacts: ["users"],
  leads: ["pipelines", "stages", "users"],
  tasks: ["users"],
  calls: ["users"],
};
