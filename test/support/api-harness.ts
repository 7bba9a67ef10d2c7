import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import type { RunSummary } from "../../lambdas/domain/core/run-summary";
import type { Clock, Sleep } from "../../lambdas/domain/core/ports/clock";
import type { TokenCipher } from "../../lambdas/domain/core/ports/token-cipher";
import type { WebhookSender } from "../../lambdas/domain/webhooks/webhook-ports";
import type { SessionRole } from "../../lambdas/domain/onboarding/auth/session-claims";
import { issueSessionToken } from "../../lambdas/runtimes/local/local-token-issuer";
import { AesGcmTokenCipher } from "../../lambdas/adapters/local/aes-token-cipher";
import { createLocalService } from "../../lambdas/runtimes/local/local-composition";
import { createMemoryLogger } from "../../lambdas/adapters/local/json-logger";
import { createTestTable, testDynamoDbClient } from "./dynamodb";
import { runSettled } from "./run-settled";
import { WITHOUT_RUN_END_FIGURES } from "./run-end-figures";
import { startSourceServer, type SourceHandler, type SourceServer } from "./source-server";

export interface ApiResponse {
  readonly status: number;
  /** Parsed JSON, or null for an empty body. */
  readonly body: any;
  readonly text: string;
}

/** The stores of another harness: a second service on the same table, under the same token key. */
export interface SharedStore {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly cipher: TokenCipher;
}

/**
 * The onboarding API as a user reaches it: real HTTP requests to the local
 * API Gateway server, which verifies session tokens and calls the same Lambda
 * handler, on DynamoDB Local and the local state machine.
 *
 * `shareStore` builds a second service over another harness's table and
 * cipher (its own signing key, engine and settings); closing it leaves the
 * shared client to its owner.
 */
export async function createApiHarness(
  options: {
    allowLoopbackSources?: boolean;
    timeScale?: number;
    shareStore?: SharedStore;
    schedule?: string;
    clock?: Clock;
    sleep?: Sleep;
    webhookSender?: WebhookSender;
    /**
     * True: a run's end keeps the figures (funnel, counts, managers) as the service does, for a file that reads them
     * or checks every item of the table. Off by default (./run-end-figures.ts): a route test about something else
     * does not pay for them; the console's end-to-end tests and `npm start` always compose them.
     */
    runEndFigures?: boolean;
  } = {},
) {
  const shared = options.shareStore;
  const client = shared?.client ?? testDynamoDbClient();
  const tableName = shared?.tableName ?? (await createTestTable(client));
  const cipher = shared?.cipher ?? new AesGcmTokenCipher(randomBytes(32));
  const dataDir = await mkdtemp(join(tmpdir(), "crm-api-"));
  const logger = createMemoryLogger();
  const service = await createLocalService({
    client,
    tableName,
    cipher,
    logger,
    dataDir,
    timeScale: options.timeScale ?? 0.01,
    allowLoopbackSources: options.allowLoopbackSources ?? true,
    sourceTimeoutMs: 2_000,
    ...(options.schedule === undefined ? {} : { schedule: options.schedule }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    ...(options.webhookSender === undefined ? {} : { webhookSender: options.webhookSender }),
    ...(options.runEndFigures === true ? {} : { instrument: WITHOUT_RUN_END_FIGURES }),
  });
  const api = await service.listen(0);
  /** Every response text, to check that no secret ever appears in one. */
  const responses: string[] = [];

  const token = (account: string, role: SessionRole = "owner", who: { readonly user?: string; readonly email?: string } = {}) =>
    issueSessionToken({ key: service.signingKey, account, role, ...who });

  async function request(
    method: string,
    path: string,
    init: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers["authorization"] = `Bearer ${init.token}`;
    const body = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${api.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    responses.push(text);
    return { status: response.status, body: text === "" ? null : JSON.parse(text), text };
  }

  /** The run's summary once its executions have ended (a gate on the engine, not a poll; no HTTP, so nothing is added to `responses`). */
  function waitForRun(connectionId: string, runId: string): Promise<RunSummary> {
    return runSettled(service.sync.engine, service.sync.runs, connectionId, runId);
  }

  /**
   * The next DynamoDB command sent on this harness's client (or the next one
   * named `command`, e.g. "GetItemCommand") fails with `error` instead of
   * reaching DynamoDB Local: the SDK's own exception at the client's boundary,
   * as if its retries had run out. Resolves `thrown` when it has fired.
   */
  function failNextDynamoDbCommand(error: Error, command?: string): { readonly thrown: Promise<void> } {
    const name = `fail-next-${randomBytes(4).toString("hex")}`;
    let fired!: () => void;
    const thrown = new Promise<void>((resolve) => (fired = resolve));
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (command !== undefined && context.commandName !== command) return next(args);
        if (!client.middlewareStack.remove(name)) return next(args); // already fired for a concurrent call
        fired();
        throw error;
      },
      // initialize: before the SDK's retry step, so exactly this one call fails.
      { step: "initialize", name },
    );
    return { thrown };
  }

  return {
    ...service,
    url: api.url,
    client,
    tableName,
    cipher,
    /** What another harness needs to share this one's table and token key. */
    store: { client, tableName, cipher } satisfies SharedStore,
    logger,
    token,
    request,
    responses,
    waitForRun,
    failNextDynamoDbCommand,
    close: async () => {
      await api.close();
      await service.sync.stop();
      if (shared === undefined) client.destroy();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
export type ApiHarness = Awaited<ReturnType<typeof createApiHarness>>;

export const CONNECTIONS_PATH = "/api/v1/crm/custom/connections";

/** The API and one workspace owner's session token. */
export interface OwnerApi {
  readonly api: ApiHarness;
  /** The owner's session token. */
  readonly owner: string;
}

/**
 * Starts the API harness for a test file (or a describe: beforeAll) with a
 * session of `account`'s owner, and closes it after; read the fields inside a
 * test or a later hook.
 */
export function useOwnerApi(account: string, options?: Parameters<typeof createApiHarness>[0]): OwnerApi {
  let ready: OwnerApi | undefined;
  const get = (): OwnerApi => {
    if (ready === undefined) throw new Error("useOwnerApi starts in beforeAll: use it in a test or a later hook");
    return ready;
  };
  beforeAll(async () => {
    const api = await createApiHarness(options);
    ready = { api, owner: await api.token(account) };
  });
  afterAll(async () => {
    await ready?.api.close();
  });
  return {
    get api() {
      return get().api;
    },
    get owner() {
      return get().owner;
    },
  };
}

/** The API, a workspace owner, a loopback source and one connection of the owner's on it: what a route test reads. */
export interface SourcedConnection extends OwnerApi {
  readonly source: SourceServer;
  readonly connectionId: string;
  /** Closes the source, then the API. */
  close(): Promise<void>;
}

/**
 * Starts the API harness and a source serving `serve`, and creates `account`'s connection on it with the given
 * token and `sync_since` at rate_limit 1000 (a route test never waits on the rate). Fails unless the POST is 201.
 */
export async function startSourcedConnection(
  account: string,
  serve: SourceHandler,
  connection: { readonly token: string; readonly syncSince: string },
  options?: Parameters<typeof createApiHarness>[0],
): Promise<SourcedConnection> {
  const api = await createApiHarness(options);
  const source = await startSourceServer(serve);
  const owner = await api.token(account);
  const created = await api.request("POST", CONNECTIONS_PATH, {
    token: owner,
    body: { base_url: source.baseUrl, token: connection.token, rate_limit: 1000, sync_since: connection.syncSince },
  });
  if (created.status !== 201) throw new Error(`creating the connection answered ${created.status}: ${JSON.stringify(created.body)}`);
  return {
    api,
    owner,
    source,
    connectionId: created.body.id as string,
    close: async () => {
      await source.close();
      await api.close();
    },
  };
}
