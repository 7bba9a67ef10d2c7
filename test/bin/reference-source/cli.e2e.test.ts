import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { parseCli, UsageError } from "../../../bin/reference-source/cli-options";
import { DEFAULT_SIZES } from "../../../bin/reference-source/dataset";
import { NO_FAULTS } from "../../../bin/reference-source/faults";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SMALL = ["--contacts", "30", "--leads", "20", "--tasks", "5", "--calls", "5", "--events", "10"];

describe("command line", () => {
  test("defaults: port 4000 on 127.0.0.1, token reference-token, seed 42, the default sizes, changes every 30 s, no faults", () => {
    expect(parseCli([], {})).toEqual({
      port: 4000,
      host: "127.0.0.1",
      token: "reference-token",
      seed: 42,
      sizes: DEFAULT_SIZES,
      faults: NO_FAULTS,
      mutateEverySeconds: 30,
      recordRequests: false,
    });
  });

  test("every flag; each also from SOURCE_<FLAG>, the flag winning", () => {
    const options = parseCli(
      [
        "--port", "0", "--host", "0.0.0.0", "--token", "t0k", "--seed", "7", "--leads", "10", "--users", "3",
        "--throttle-every", "5", "--retry-after", "4", "--burst-503", "2", "--burst-every", "9", "--slow-ms", "50",
        "--bad-record", "--missing", "tasks,/events", "--mutate-every", "0.5",
      ],
      { SOURCE_PORT: "5000", SOURCE_TOKEN: "from-env" },
    );
    expect(options).toMatchObject({
      port: 0,
      host: "0.0.0.0",
      token: "t0k",
      seed: 7,
      sizes: { leads: 10, users: 3, contacts: DEFAULT_SIZES.contacts },
      faults: { throttleEvery: 5, retryAfterSeconds: 4, burst503: 2, burstEvery: 9, slowMs: 50, badRecord: true, missing: ["tasks", "events"] },
      mutateEverySeconds: 0.5,
    });
    expect(
      parseCli([], { SOURCE_PORT: "5000", SOURCE_TOKEN: "from-env", SOURCE_SLOW_MS: "20", SOURCE_BAD_RECORD: "1", SOURCE_MISSING: "calls" }),
    ).toMatchObject({ port: 5000, token: "from-env", faults: { slowMs: 20, badRecord: true, missing: ["calls"] } });
    expect(parseCli(["--help"], {})).toBe("help");
  });

  test.each([
    [["--port", "70000"], /--port must be a whole number from 0 to 65535/],
    [["--leads", "-1"], /--leads/],
    [["--slow-ms", "fast"], /--slow-ms/],
    [["--mutate-every", "soon"], /--mutate-every/],
    [["--missing", "leads"], /"leads" is not an optional endpoint/],
    [["--token", "has space"], /--token/],
    [["--colour"], /colour/],
  ])("bad input %j: a UsageError naming the flag", (argv, message) => {
    expect(() => parseCli(argv, {})).toThrow(UsageError);
    expect(() => parseCli(argv, {})).toThrow(message);
  });
});

describe("npm run source", () => {
  const children: ChildProcess[] = [];
  const servers: Server[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
    for (const server of servers.splice(0)) server.close();
  });

  function run(args: string[]): { child: ChildProcess; stdout: () => string; stderr: () => string } {
    const child = spawn(process.execPath, ["--import", "tsx", "bin/reference-source.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, SOURCE_PORT: "", SOURCE_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
    return { child, stdout: () => out, stderr: () => err };
  }

  test("--port 0: prints one line with the real port, serves the API, and Ctrl-C stops it cleanly", async () => {
    const { child, stdout } = run(["--port", "0", ...SMALL]);
    await expect.poll(stdout, { timeout: 20_000 }).toContain("\n");
    expect(stdout()).toMatch(
      /^Reference source API on http:\/\/127\.0\.0\.1:(\d+) \(token: reference-token, 20 leads, 30 contacts, 30 users, 3 pipelines, 5 tasks, 5 calls, 10 events, seed 42, changes every 30 s, faults: none\)\n$/,
    );
    const port = Number(/:(\d+) /.exec(stdout())?.[1]);
    expect(port).toBeGreaterThan(0);
    const response = await fetch(`http://127.0.0.1:${port}/leads`, { headers: { authorization: "Bearer reference-token" } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(20);

    child.kill("SIGINT");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(stdout().trim().split("\n")).toHaveLength(1);
  });

  test("port in use: one line saying so and what to do, exit code 1", async () => {
    const blocker = createServer();
    servers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as AddressInfo;
    const { child, stderr } = run(["--port", String(port), ...SMALL]);
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(1);
    expect(stderr().trim().split("\n")).toEqual([
      `reference-source: port ${port} on 127.0.0.1 is already in use: stop what is listening there, or pick another port with --port (or SOURCE_PORT; --port 0 takes any free one)`,
    ]);
  });

  test("bad flags: the message and the usage on stderr, exit code 2", async () => {
    const { child, stderr } = run(["--leads", "many"]);
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
    expect(stderr()).toMatch(/^reference-source: --leads must be a whole number >= 0\nusage: npm run source/);
  });
});
