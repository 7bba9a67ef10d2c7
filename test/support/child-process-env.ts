/**
 * The environment a test gives `npm start` (or bin/start.ts) in a child process: only PATH and HOME of the
 * test's own, no schedule, and a JVM tuned for a short life.
 */

/**
 * C1 only, serial GC, for every JVM the tests start (the suite's shared DynamoDB Local included): C2's compiler
 * threads cost more CPU than their faster code saves in a test's life. A runtime's DynamoDB Local answers its first
 * request in about half the time (5.4-7.7 s against 13.5-16.7 s, measured at load 12 on the 2 cores); over a whole
 * `npm test`, the CPU of every process fell from 790 s to 726 s (user + system, /usr/bin/time -v, on a loaded
 * machine). And no bytecode verification of the classes loaded from DynamoDB Local's own jars (a fixed
 * dependency, not code under test): a start to its first answer took 2.5-2.8 s of CPU instead of 3.0-3.5 s (three
 * starts each way, alternating), and the suite starts about 17. The product's `npm start` keeps the JVM's defaults.
 * The JVM reads JAVA_TOOL_OPTIONS itself.
 */
export const TEST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote";

export function childProcessEnv(env: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", SCHEDULE: "off", JAVA_TOOL_OPTIONS: TEST_JVM, ...env };
}
