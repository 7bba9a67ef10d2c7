import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionRole } from "../../lambdas/onboarding/auth/session-claims";
import { issueSessionToken } from "../../lambdas/onboarding/auth/local-token-issuer";
import { AesGcmTokenCipher } from "../../lambdas/local/aes-token-cipher";
import { createLocalService } from "../../lambdas/local/local-service";
import { createMemoryLogger } from "../../lambdas/observability/json-logger";
import { createTestTable, testDynamoDbClient } from "./dynamodb";

export interface ApiResponse {
  readonly status: number;
  /** Parsed JSON, or null for an empty body. */
  readonly body: any;
  readonly text: string;
}

/**
 * The onboarding API as a user reaches it: real HTTP requests to the local
 * API Gateway server, which verifies session tokens and calls the same Lambda
 * handler, on DynamoDB Local and the local state machine.
 */
export async function createApiHarness(options: { allowLoopbackSources?: boolean; timeScale?: number } = {}) {
  const client = testDynamoDbClient();
  const tableName = await createTestTable(client);
  const dataDir = await mkdtemp(join(tmpdir(), "crm-api-"));
  const logger = createMemoryLogger();
  const service = await createLocalService({
    client,
    tableName,
    cipher: new AesGcmTokenCipher(randomBytes(32)),
    logger,
    dataDir,
    timeScale: options.timeScale ?? 0.01,
    allowLoopbackSources: options.allowLoopbackSources ?? true,
    sourceTimeoutMs: 2_000,
  });
  const api = await service.listen(0);
  /** Every response text, to check that no secret ever appears in one. */
  const responses: string[] = [];

  const token = (account: string, role: SessionRole = "owner") => issueSessionToken({ key: service.signingKey, account, role });

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

  return {
    ...service,
    url: api.url,
    logger,
    token,
    request,
    responses,
    close: async () => {
      await api.close();
      await service.sync.stop();
      client.destroy();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
export type ApiHarness = Awaited<ReturnType<typeof createApiHarness>>;

export const CONNECTIONS_PATH = "/api/v1/crm/custom/connections";
