import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { TEST_JVM } from "./test/support/child-process-env";

/** What names an end-to-end test: it starts whole processes (`npm start`, Chromium, the CLI), so it is slow. */
export const END_TO_END_SUFFIX = ".e2e.test.ts";

/** What starts a browser: the console's end-to-end files (each its own Chromium). */
const BROWSER_PREFIX = "/test/console/";
/** What starts `npm start` with its own DynamoDB Local (Java), or the bench's runtimes: the heaviest end-to-end files. */
const RUNTIME_PREFIXES = ["/test/runtimes/local/", "/test/bin/bench/"];

/**
 * The end-to-end files first, then the rest as vitest orders them (slowest first when its cache knows, else
 * largest first): a clean clone has no cache, and a slow file started last would leave one worker idle while
 * the other finishes it. Among the end-to-end files, those that start runtimes (and their Java) go first, and the
 * browser files are spread between the others: on a clean clone, largest first had started four Chromiums at once
 * (the figures are in the commit that set this order).
 */
class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const endToEnd = (file: TestSpecification) => file.moduleId.endsWith(END_TO_END_SUFFIX);
    const browser = (file: TestSpecification) => file.moduleId.includes(BROWSER_PREFIX);
    const runtime = (file: TestSpecification) => RUNTIME_PREFIXES.some((prefix) => file.moduleId.includes(prefix));
    const others = sorted.filter((file) => endToEnd(file) && !browser(file));
    const processes = [...others.filter(runtime), ...others.filter((file) => !runtime(file))];
    const browsers = sorted.filter((file) => endToEnd(file) && browser(file));
    const interleaved = Array.from({ length: Math.max(processes.length, browsers.length) }, (_, i) => [processes[i], browsers[i]]).flat();
    return [...interleaved.filter((file) => file !== undefined), ...sorted.filter((file) => !endToEnd(file))];
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One DynamoDB Local (in memory) for the whole run; its endpoint reaches the tests through the environment.
    globalSetup: ["test/support/dynamodb-local.global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Three workers on the 2 cores, each keeping its module graph between files: the run waits on child processes,
    // the browser, timers and sockets part of the time, and a third worker fills it (two, three and four workers
    // measured in the commit that set three).
    maxWorkers: 3,
    isolate: false,
    sequence: { sequencer: EndToEndFirst },
    env: {
      // Node 20 here, nodejs22.x in Lambda: the SDK's Node 22 notice is noise in test output.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      // The DynamoDB Locals a test starts in its worker (a runtime's, the bench's); the global setup, which does not
      // get this environment, gives the suite's shared one the same options (test/support/child-process-env.ts).
      JAVA_TOOL_OPTIONS: TEST_JVM,
    },
  },
});
