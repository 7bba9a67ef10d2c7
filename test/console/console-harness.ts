import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { AesGcmTokenCipher } from "../../lambdas/adapters/local/aes-token-cipher";
import { ensureConsoleBuilt } from "../../lambdas/runtimes/local/console-build";
import { createLocalService } from "../../lambdas/runtimes/local/local-composition";
import { createMemoryLogger } from "../../lambdas/adapters/local/json-logger";
import { createTestTable, testDynamoDbClient } from "../support/dynamodb";
import type { Clock } from "../../lambdas/domain/core/ports/clock";

/** Debian's Chromium, started so that it never reaches for the network (this machine has none but loopback). */
export const CHROMIUM_PATH = "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * The local service as `npm start` composes it (DynamoDB Local, the local
 * state machine, the API server that also serves the console and the dev
 * sign-in), on a fresh table, plus one headless Chromium with a fresh profile.
 */
export async function startConsoleHarness(options: { readonly oidc?: { readonly issuer: string; readonly clientId: string }; readonly clock?: Clock } = {}) {
  await ensureConsoleBuilt();
  const client = testDynamoDbClient();
  const tableName = await createTestTable(client);
  const dataDir = await mkdtemp(join(tmpdir(), "crm-console-"));
  const service = await createLocalService({
    client,
    tableName,
    cipher: new AesGcmTokenCipher(randomBytes(32)),
    logger: createMemoryLogger(),
    dataDir,
    timeScale: 0.01,
    allowLoopbackSources: true,
    // As `npm start` passes its default SCHEDULE: each connection shows the interval as its next run.
    schedule: "1h",
    ...(options.oidc === undefined ? {} : { oidc: options.oidc }),
    // The service's clock (the figures' "now" and default period); the page keeps the browser's.
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const api = await service.listen(0);
  const profileDir = await mkdtemp(join(tmpdir(), "crm-console-chromium-"));
  const browser: BrowserContext = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    // A laptop's screen: the Status section must say what is wrong and what to do within it, unscrolled.
    viewport: { width: 1280, height: 800 },
    // One language on any machine: a date field then takes its digits in one order (month, day, year) and the
    // screenshots read the same wherever they are retaken.
    locale: "en-US",
  });

  /** A new tab: a new in-memory session, signed in as `role` of `workspace` through the page's own form, on the role's landing page. */
  async function signedInPage(workspace: string, role: "owner" | "ROP" | "MOP"): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${api.url}/`);
    await page.getByLabel("Workspace").fill(workspace);
    await page.getByLabel("Role").selectOption(role);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Each role lands on its own page: the owner on the connections, a ROP on the Team, a MOP on their figures.
    const landing = role === "owner" ? "CRM connections" : role === "ROP" ? "Team" : "My figures";
    await page.getByRole("heading", { name: landing, level: 1 }).waitFor();
    return page;
  }

  /**
   * The onboarding API as `workspace`'s owner, straight from a test, signed in through the dev sign-in (set-up and
   * checks only: the page is what a console test tests).
   */
  async function ownerApi(workspace: string): Promise<(method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, any> }>> {
    const signIn = await fetch(`${api.url}/dev/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workspace, role: "owner" }) });
    const { token } = (await signIn.json()) as { token: string };
    return async (method, path, body) => {
      const response = await fetch(`${api.url}/api/v1/crm/custom${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, any> };
    };
  }

  return {
    url: api.url,
    ownerApi,
    service,
    browser,
    signedInPage,
    close: async () => {
      await browser.close();
      await api.close();
      await service.sync.stop();
      client.destroy();
      await rm(dataDir, { recursive: true, force: true });
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}
export type ConsoleHarness = Awaited<ReturnType<typeof startConsoleHarness>>;
