import { execFileSync, spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { childProcessEnv } from "./child-process-env";

/**
 * `npm start` as a child process (bin/start.ts under tsx, as the user runs it),
 * spawned detached so that it leads its own process group: SIGKILL to the
 * group takes the runtime and its DynamoDB Local (Java) child down together,
 * with no graceful stop of either.
 */

export interface RuntimeProcess {
  readonly pid: number;
  /** The API's origin, from the start line, e.g. http://127.0.0.1:41234. */
  readonly url: Promise<string>;
  /** The DynamoDB Local process the runtime spawned. */
  javaPid(): number;
  /** SIGKILL to the whole process group; resolves once the runtime and its Java child have both exited. */
  killGroup(): Promise<void>;
  /** SIGKILL to DynamoDB Local alone (the runtime lives on); resolves once it has exited. */
  killJava(): Promise<void>;
  /** Everything the runtime printed (for failure messages). */
  output(): string;
}

export function startRuntimeProcess(env: Record<string, string>): RuntimeProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "bin/start.ts"], {
    env: childProcessEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("the runtime did not start");
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-200_000);
      const match = /API on (http:\/\/\S+)\/api\/v1/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(() => reject(new Error(`the runtime exited before its start line:\n${output}`)));
  });
  url.catch(() => {});

  /** The runtime's live DynamoDB Local: its pid, and the port from its `-port` argument. */
  const findJava = (): { pid: number; port: number | undefined } | undefined => {
    let listing = "";
    try {
      listing = execFileSync("ps", ["-o", "pid=,stat=,comm=,args=", "--ppid", String(pid)], { encoding: "utf8" });
    } catch {
      return undefined; // ps exits 1 when the runtime has no children left
    }
    const java = listing
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/))
      .find(([, stat, comm]) => comm === "java" && !stat?.startsWith("Z"));
    if (java?.[0] === undefined) return undefined;
    const port = java[java.indexOf("-port") + 1];
    return { pid: Number(java[0]), port: java.includes("-port") && port !== undefined ? Number(port) : undefined };
  };
  const javaPid = () => {
    const java = findJava();
    if (java === undefined) throw new Error(`no DynamoDB Local child of the runtime ${pid}`);
    return java.pid;
  };

  return {
    pid,
    url,
    javaPid,
    async killGroup() {
      const java = findJava();
      const javaDeath = java === undefined ? undefined : await watchDeath(java.pid, java.port);
      process.kill(-pid, "SIGKILL");
      await Promise.all([exited, javaDeath?.dead]);
    },
    async killJava() {
      const java = findJava();
      if (java === undefined) throw new Error(`no DynamoDB Local child of the runtime ${pid}`);
      const javaDeath = await watchDeath(java.pid, java.port);
      process.kill(java.pid, "SIGKILL");
      await javaDeath.dead;
    },
    output: () => output,
  };
}

/**
 * Called before the kill; `dead` resolves once DynamoDB Local is dead (a field, not the promise itself: a promise
 * resolved with a promise waits for it, and this one must not be waited for before the kill). A connection held open to
 * its port closes when the process dies, with its every file and socket, while `tail --pid` would also wait for
 * the orphaned zombie to be reaped (PID 1 here takes 1.3-1.7 s to do that). Without a port: `tail --pid`.
 */
async function watchDeath(pid: number, port: number | undefined): Promise<{ readonly dead: Promise<void> }> {
  if (port === undefined) return { dead: processGone(pid) };
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let connected = false;
    socket.once("connect", () => {
      connected = true;
      resolve({ dead: new Promise<void>((closed) => socket.once("close", () => closed())) });
      // Flowing, so that the end of the stream is read (and "close" follows) as soon as the process dies.
      socket.resume();
    });
    // Before the connection: not listening (yet, or any more), so wait on the pid. After it: the reset of the death.
    socket.on("error", () => {
      if (!connected) resolve({ dead: processGone(pid) });
    });
  });
}

/** Resolves when the process has exited (it need not be our child): `tail --pid` returns then. */
function processGone(pid: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const tail = spawn("tail", [`--pid=${pid}`, "-s", "0.05", "-f", "/dev/null"], { stdio: "ignore" });
    tail.once("error", reject);
    tail.once("exit", () => resolve());
  });
}

/** A port nobody listens on: DynamoDB Local gets it, so that the test can read the table directly. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
