import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Logger } from "../core/ports/logger";
import type { TokenCipher } from "../core/ports/token-cipher";
import { loadOrCreateSigningKey } from "./local-token-issuer";
import { makeApiHandler } from "../onboarding/http/api-handler";
import type { OnboardingDeps } from "../onboarding/onboarding-deps";
import { DynamoDbPreflightStore } from "../preflight-runs/dynamodb-preflight-store";
import { runPreflightJob } from "../preflight/preflight-job";
import { createHttpSourceClient } from "../source/http-source-client";
import { createGuardedFetch } from "../source/ssrf/guarded-fetch";
import { startApiGatewayServer } from "./api-gateway-server";
import { createCrashGates, gateDynamoDbClient, gateSourceClient } from "./crash-gates";
import { InProcessPreflightLauncher } from "./in-process-preflight-launcher";
import { createLocalSync } from "./local-sync";
import type { LocalOidcSettings } from "./oidc-token-verifier";

export interface LocalServiceOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly cipher: TokenCipher;
  readonly logger: Logger;
  /** Where the session signing key lives (created on first run). */
  readonly dataDir: string;
  readonly timeScale: number;
  /** Loopback sources are allowed locally by default (demo, tests); private and metadata addresses never are. */
  readonly allowLoopbackSources: boolean;
  /** The source request timeout; defaults to the service's SOURCE_REQUEST_TIMEOUT_MS. */
  readonly sourceTimeoutMs?: number;
  /** Page tasks per execution before ContinueAsNew; defaults to PAGE_TASKS_PER_EXECUTION. */
  readonly pageTasksPerExecution?: number;
  /** CRASH_GATES: the control server's loopback URL; unset in normal use (docs/crash-consistency.md). */
  readonly crashGatesUrl?: string;
  /** SCHEDULE as configured (`1h`, `off`): each connection shows it; unset, the API answers `schedule: null`. */
  readonly schedule?: string;
  /** OIDC_ISSUER and OIDC_CLIENT_ID: the console signs in there (authorization code + PKCE) and the API accepts its tokens. */
  readonly oidc?: LocalOidcSettings;
}

/**
 * The whole service on one machine: the sync on the local engine and the
 * onboarding API handler, sharing the same stores and the same SSRF-guarded
 * source client. The composition root of the local runtime and the API tests.
 */
export async function createLocalService(options: LocalServiceOptions) {
  const sourceFetch = createGuardedFetch({ allowLoopback: options.allowLoopbackSources });
  const httpSource = createHttpSourceClient({
    fetch: sourceFetch,
    ...(options.sourceTimeoutMs === undefined ? {} : { timeoutMs: options.sourceTimeoutMs }),
  });
  // Test hook only: every gate is a decorator, so without CRASH_GATES nothing here differs.
  const gates = options.crashGatesUrl === undefined ? undefined : createCrashGates(options.crashGatesUrl);
  if (gates !== undefined) gateDynamoDbClient(options.client, gates);
  const source = gates === undefined ? httpSource : gateSourceClient(httpSource, gates);
  const sync = createLocalSync({ ...options, source, ...(gates === undefined ? {} : { gates }) });
  const preflights = new DynamoDbPreflightStore({ client: options.client, tableName: options.tableName });
  const preflightLauncher = new InProcessPreflightLauncher(
    (job) =>
      runPreflightJob(
        { connections: sync.connections, cipher: options.cipher, preflights, limiter: sync.limiter, sourceFetch, clock: sync.deps.clock, logger: options.logger },
        job,
      ),
    options.logger,
  );
  const onboarding: OnboardingDeps = {
    connections: sync.connections,
    cipher: options.cipher,
    runs: sync.runs,
    records: sync.records,
    source,
    limiter: sync.limiter,
    starter: sync.engine,
    clock: sync.deps.clock,
    logger: options.logger,
    preflights,
    preflightLauncher,
    allowLoopbackSources: options.allowLoopbackSources,
    ...(options.schedule === undefined ? {} : { schedule: options.schedule }),
  };
  const signingKey = await loadOrCreateSigningKey(options.dataDir);
  const apiHandler = makeApiHandler(onboarding);

  return {
    sync,
    onboarding,
    preflightLauncher,
    signingKey,
    apiHandler,
    /** Serves the onboarding API like API Gateway would. */
    listen: (port: number, host?: string) =>
      startApiGatewayServer({
        port,
        ...(host === undefined ? {} : { host }),
        handler: apiHandler,
        signingKey,
        ...(options.oidc === undefined ? {} : { oidc: options.oidc }),
      }),
  };
}
export type LocalService = Awaited<ReturnType<typeof createLocalService>>;
