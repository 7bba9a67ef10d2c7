import type * as v from "valibot";
import type { SyncEntity } from "../core/entities";
import type { RecordWrite, StageKinds } from "../core/ports/record-store";
import { CallSchema } from "../records/call";
import { ContactSchema } from "../records/contact";
import { EventSchema } from "../records/event";
import { LeadSchema, type LeadOutput } from "../records/lead";
import { PipelineSchema, type PipelineOutput } from "../records/pipeline";
import { TaskSchema } from "../records/task";
import { UserSchema } from "../records/user";
import { lossReasonId } from "./loss-reason-id";
import { classifyLead } from "./won-lost";

/** What turning one validated record into writes may need, and what it reports back. */
export interface WriteContext {
  readonly stageKinds: StageKinds;
  /** Called for each lead that is neither won nor lost because its stage does not resolve. */
  readonly onUnresolvedLead: (leadId: string) => void;
}

export interface EntityDefinition<TOutput extends { readonly id: string }, E extends SyncEntity = SyncEntity> {
  readonly entity: E;
  /** Source endpoint path. */
  readonly path: string;
  /** A failed required entity fails the run; a 404 from an optional one is success with 0 records. */
  readonly required: boolean;
  /** Sent updated_since and driven by a watermark; records must ascend by `comparedTimestamp`. */
  readonly incremental: boolean;
  readonly schema: v.GenericSchema<unknown, TOutput>;
  /** The timestamp compared for ordering and the watermark (null: never moves it). */
  readonly comparedTimestamp: (record: TOutput) => string | null;
  readonly toWrites: (record: TOutput, context: WriteContext) => RecordWrite[];
}

function define<TOutput extends { readonly id: string }, E extends SyncEntity>(
  definition: EntityDefinition<TOutput, E>,
): EntityDefinition<TOutput, E> {
  return definition;
}

const single =
  (collection: RecordWrite["collection"]) =>
  <T extends { readonly id: string }>(record: T): RecordWrite[] => [{ collection, key: [record.id], doc: record }];

const noTimestamp = (): null => null;

function pipelineWrites(pipeline: PipelineOutput): RecordWrite[] {
  const { stages, ...doc } = pipeline;
  return [
    { collection: "pipelines", key: [pipeline.id], doc },
    ...stages.map(
      (stage): RecordWrite => ({
        collection: "stages",
        key: [pipeline.id, stage.id],
        doc: { ...stage, pipeline_id: pipeline.id },
      }),
    ),
  ];
}

// is_won, is_lost and loss_reason_id are the service's, not the source's: core/derived-fields.ts names them for audits.
function leadWrites(lead: LeadOutput, context: WriteContext): RecordWrite[] {
  const { resolved, ...wonLost } = classifyLead(lead, context.stageKinds);
  if (!resolved) context.onUnresolvedLead(lead.id);
  const lossReason = lead.loss_reason === null ? null : { id: lossReasonId(lead.loss_reason), text: lead.loss_reason };
  const writes: RecordWrite[] = [];
  if (lossReason) writes.push({ collection: "loss_reasons", key: [lossReason.id], doc: lossReason });
  writes.push({
    collection: "leads",
    key: [lead.id],
    doc: { ...lead, ...wonLost, loss_reason_id: lossReason?.id ?? null },
  });
  return writes;
}

/** The seven synced entities in the spec's sync order (stages travel inside pipelines). */
export const ENTITY_CATALOG = {
  pipelines: define({
    entity: "pipelines",
    path: "/pipelines",
    required: true,
    incremental: false,
    schema: PipelineSchema,
    comparedTimestamp: noTimestamp,
    toWrites: pipelineWrites,
  }),
  users: define({
    entity: "users",
    path: "/users",
    required: true,
    incremental: false,
    schema: UserSchema,
    comparedTimestamp: noTimestamp,
    toWrites: single("users"),
  }),
  contacts: define({
    entity: "contacts",
    path: "/contacts",
    required: true,
    incremental: true,
    schema: ContactSchema,
    comparedTimestamp: (contact) => contact.updated_at,
    toWrites: single("contacts"),
  }),
  leads: define({
    entity: "leads",
    path: "/leads",
    required: true,
    incremental: true,
    schema: LeadSchema,
    comparedTimestamp: (lead) => lead.updated_at,
    toWrites: leadWrites,
  }),
  tasks: define({
    entity: "tasks",
    path: "/tasks",
    required: false,
    incremental: true,
    schema: TaskSchema,
    comparedTimestamp: (task) => task.updated_at,
    toWrites: single("tasks"),
  }),
  calls: define({
    entity: "calls",
    path: "/calls",
    required: false,
    incremental: true,
    schema: CallSchema,
    comparedTimestamp: (call) => call.updated_at,
    toWrites: single("calls"),
  }),
  events: define({
    entity: "events",
    path: "/events",
    required: false,
    incremental: true,
    schema: EventSchema,
    // Events are compared by updated_at when sent, else created_at; updated_at itself is not stored.
    comparedTimestamp: (event) => event.updated_at ?? event.created_at,
    toWrites: ({ updated_at: _readOnlyForWatermark, ...event }) => [{ collection: "events", key: [event.id], doc: event }],
  }),
} satisfies { readonly [E in SyncEntity]: EntityDefinition<any, E> };

/** The entities whose failure fails the run (the spec's four required endpoints). */
export const REQUIRED_ENTITIES: readonly SyncEntity[] = Object.values(ENTITY_CATALOG)
  .filter((definition) => definition.required)
  .map((definition) => definition.entity);

export function entityDefinition(entity: SyncEntity): EntityDefinition<{ readonly id: string }> {
  return ENTITY_CATALOG[entity] as unknown as EntityDefinition<{ readonly id: string }>;
}
