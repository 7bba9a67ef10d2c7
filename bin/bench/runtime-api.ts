import type { LocalRuntime } from "../../lambdas/runtimes/local/local-runtime";
import { issueSessionToken } from "../../lambdas/runtimes/local/local-token-issuer";

/** The onboarding API of a runtime the bench started, as an owner of `account`: JSON in and out, any non-2xx thrown. */
export async function runtimeApi(runtime: Pick<LocalRuntime, "service" | "url">, account: string): Promise<(method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>> {
  const token = await issueSessionToken({ key: runtime.service.signingKey, account, role: "owner" });
  return async (method, path, body) => {
    const response = await fetch(`${runtime.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
}
