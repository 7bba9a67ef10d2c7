import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface Arrival {
  readonly authorization: string;
  readonly path: string;
  /** Epoch milliseconds, high resolution, stamped in the source's own process. */
  readonly at: number;
}

/** Starts test/support/child-source-main.ts in a child process; resolves when it listens. */
export async function startChildSource(config: { tokens: string[]; contacts: number }) {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./child-source-main.ts", import.meta.url))], {
    env: { ...process.env, CHILD_SOURCE_CONFIG: JSON.stringify(config) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`child source exited with ${code}`)));
  });
  return {
    baseUrl,
    arrivals: async (): Promise<Arrival[]> => (await (await fetch(`${baseUrl}/__log`)).json()) as Arrival[],
    close: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}
