/**
 * The records a source API serves, typed exactly as the spec's "Resources and
 * their fields" describes them on the wire (ids are strings, timestamps are
 * ISO-8601 text with an offset). Fields are readonly: a change replaces the
 * record object, so a page being read is never edited under the reader.
 */

export type StageKind = "open" | "won" | "lost";

export interface SourceStage {
  readonly id: string;
  readonly name: string;
  readonly kind: StageKind;
  readonly sort: number;
  readonly color: string;
}

export interface SourcePipeline {
  readonly id: string;
  readonly name: string;
  readonly is_archived: boolean;
  readonly sort: number;
  readonly stages: readonly SourceStage[];
  /** Not read by the service; real CRMs send them, so the reference does too. */
  readonly created_at: string;
  readonly updated_at: string;
}

export interface SourceUser {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly role: string;
  /** Omitted on some users: the spec reads a missing key as active. */
  readonly is_active?: boolean;
  /** Ignored by the service. */
  readonly phone?: string;
}

export type CustomFields = Readonly<Record<string, string | number | boolean | null>>;

export interface SourceContact {
  readonly id: string;
  readonly name: string;
  readonly phone: string | null;
  readonly email: string | null;
  readonly responsible_user_id: string | null;
  readonly custom_fields: CustomFields | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface SourceUtm {
  readonly source: string | null;
  readonly medium: string | null;
  readonly campaign: string | null;
  readonly content: string | null;
  readonly term: string | null;
}

export interface SourceLead {
  readonly id: string;
  readonly name: string;
  /** A number, or a numeric string as some CRMs send it (`"12500.50"`). */
  readonly price: number | string;
  /** Ignored by the service (a connection is single-currency). */
  readonly currency: string;
  readonly pipeline_id: string;
  readonly stage_id: string;
  readonly responsible_user_id: string | null;
  readonly contact_ids: readonly string[] | null;
  /** Only on leads in a lost stage. */
  readonly loss_reason: string | null;
  readonly source: string | null;
  /** Omitted on leads that did not come from a tracked campaign. */
  readonly utm?: SourceUtm;
  readonly custom_fields: CustomFields | null;
  readonly created_at: string;
  readonly updated_at: string;
  /** When the lead reached its won or lost stage; null while open. */
  readonly closed_at: string | null;
  /** Tombstone: true soft-deletes the lead in the service. */
  readonly is_deleted: boolean;
}

export interface SourceTask {
  readonly id: string;
  readonly lead_id: string | null;
  readonly contact_id: string | null;
  readonly responsible_user_id: string | null;
  readonly text: string;
  readonly is_completed: boolean;
  readonly due_at: string;
  readonly completed_at: string | null;
  readonly updated_at: string;
}

export interface SourceCall {
  readonly id: string;
  /** Omitted on calls logged against a contact only. */
  readonly lead_id?: string;
  readonly contact_id: string | null;
  readonly responsible_user_id: string | null;
  readonly direction: "in" | "out";
  /** 0 for a call nobody answered. */
  readonly duration_seconds: number;
  readonly phone: string | null;
  /** Not an analytics field: the service keeps unknown call keys in a raw copy. */
  readonly call_status: string;
  readonly recording_link?: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface SourceEvent {
  readonly id: string;
  readonly lead_id: string;
  readonly type: string;
  /** Scalar, object or array; omitted when there was no prior state. */
  readonly value_before?: unknown;
  readonly value_after?: unknown;
  readonly created_at: string;
  /** Only on events edited after the fact (a corrected note). */
  readonly updated_at?: string;
  /** Dropped by the service. */
  readonly created_by?: string;
}

/** Everything one source serves, endpoint by endpoint. */
export interface Dataset {
  readonly seed: number;
  /** The `now` the data was generated against. */
  readonly generatedAt: string;
  /** Bumped by every mutation. */
  revision: number;
  readonly pipelines: SourcePipeline[];
  readonly users: SourceUser[];
  readonly contacts: SourceContact[];
  readonly leads: SourceLead[];
  readonly tasks: SourceTask[];
  readonly calls: SourceCall[];
  readonly events: SourceEvent[];
}

export type SourceRecord = Dataset["pipelines" | "users" | "contacts" | "leads" | "tasks" | "calls" | "events"][number];
