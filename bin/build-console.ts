/** `npm run build`: the owner's console into console/dist (Vite), with the source hash `npm start` compares against. */
import { buildConsole } from "../lambdas/runtimes/local/console-build";

buildConsole().then(
  () => console.log("console built into console/dist"),
  (error: unknown) => {
    console.error(`console build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
