/**
 * The reference source in a process of its own, for the rate-bound
 * measurement: its arrival stamps then come from its own event loop, not from
 * the service's (whose commits, JSON and GC would otherwise delay the stamp of
 * a request that already left). Started by ./source-process.ts with fork();
 * arguments: JSON of the sizes, JSON of the faults (slowMs). Messages: "requests" -> the request log;
 * "close" -> stops and exits.
 */
import { startReferenceSource } from "../reference-source/start-reference-source";
import type { SourceProcessMessage } from "./source-process";

const sizes = JSON.parse(process.argv[2] ?? "{}") as Record<string, number>;
const faults = JSON.parse(process.argv[3] ?? "{}") as { slowMs?: number };
const source = await startReferenceSource({ sizes, faults });
const send = (message: SourceProcessMessage) => process.send?.(message);
send({ type: "listening", url: source.url, token: source.token });
process.on("message", (message: unknown) => {
  if (message === "requests") send({ type: "requests", requests: source.requests });
  if (message === "close") void source.close().then(() => process.exit(0));
});
