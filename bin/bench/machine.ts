import { spawnSync } from "node:child_process";
import { cpus, platform, release, totalmem } from "node:os";

/** The header: when and where the figures were taken. */
export function machineHeader(command: string): string {
  const cpu = cpus();
  return [
    "## Bench",
    "",
    `- date: ${new Date().toISOString()}`,
    `- command: ${command}`,
    `- machine: ${cpu.length} cores, ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB memory, ${platform()} ${release()}`,
    `- runtime: Node ${process.version}; ${javaVersion()} running DynamoDB Local (in memory) on the same cores`,
    "- setup: one DynamoDB Local for the whole bench, a fresh table per measurement; the reference source in-process on 127.0.0.1, faults off; TIME_SCALE 1; service log lines discarded",
    "",
  ].join("\n");
}

function javaVersion(): string {
  // `java -version` writes to stderr.
  const result = spawnSync("java", ["-version"], { encoding: "utf8" });
  return firstLine(result.stderr ?? "") ?? "Java (version unknown)";
}

function firstLine(text: string): string | undefined {
  const line = text.split("\n")[0]?.trim();
  return line === undefined || line === "" ? undefined : line;
}
