import { readdirSync, readFileSync } from "node:fs";

/**
 * Where a running DynamoDB Local maps its native SQLite library from: the copy it made at start in its
 * java.io.tmpdir (lambdas/runtimes/local/dynamodb-local.ts, ENGINE_TMP_DIR). Read from Linux's /proc.
 */
export function nativeLibraryCopyOf(pid: number): string | undefined {
  const mapped = readFileSync(`/proc/${pid}/maps`, "utf8")
    .split("\n")
    .find((line) => line.includes("libsqlite4java"));
  return mapped?.slice(mapped.indexOf("/")).replace(/ \(deleted\)$/, "");
}

/** The pid of the Java process started with `-port <port>` (DynamoDB Local's own argument). */
export function javaPidOnPort(port: number): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue; // gone since the listing
    }
    const at = args.indexOf("-port");
    if (args[0]?.endsWith("java") && at >= 0 && args[at + 1] === String(port)) return Number(entry);
  }
  throw new Error(`no Java process listens with -port ${port}`);
}
