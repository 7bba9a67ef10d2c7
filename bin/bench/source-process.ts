import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { RequestLogEntry } from "../reference-source/source-api";

const CHILD = fileURLToPath(new URL("./source-process-child.ts", import.meta.url));

export type SourceProcessMessage =
  | { readonly type: "listening"; readonly url: string; readonly token: string }
  | { readonly type: "requests"; readonly requests: readonly RequestLogEntry[] };

/** The reference source in a child process (see source-process-child.ts): its URL, token, request log and close. */
export interface SourceProcess {
  readonly url: string;
  readonly token: string;
  /** Every request so far, stamped by the source's own process. */
  requests(): Promise<readonly RequestLogEntry[]>;
  close(): Promise<void>;
}

/** `slowMs`: every answer held back this long (the reference source's --slow-ms), as a remote CRM's would be. */
export async function startSourceProcess(sizes: Readonly<Record<string, number>>, faults: { readonly slowMs?: number } = {}): Promise<SourceProcess> {
  const child: ChildProcess = fork(CHILD, [JSON.stringify(sizes), JSON.stringify(faults)], {
    // tsx's loader by name, not the parent's execArgv: the parent may be the bench under tsx or a test under vitest.
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const next = <T extends SourceProcessMessage["type"]>(type: T) =>
    new Promise<Extract<SourceProcessMessage, { type: T }>>((resolve, reject) => {
      const onMessage = (message: SourceProcessMessage) => {
        if (message.type !== type) return;
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(message as Extract<SourceProcessMessage, { type: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`the reference source process exited with ${code}`));
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  const { url, token } = await next("listening");
  return {
    url,
    token,
    async requests() {
      const answer = next("requests");
      child.send("requests");
      return (await answer).requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.send("close");
      }),
  };
}
