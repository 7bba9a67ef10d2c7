/**
 * Builds the package's dist/ from the service's own code (npm pack runs it as `prepack`):
 *
 *   npm run build -w crm-preflight
 *
 * - dist/crm-preflight.mjs: bin/preflight.ts and the kit it runs (lambdas/domain/preflight and
 *   source-contract), valibot included, bundled by esbuild into one file with no dependency;
 * - dist/docs/rules.md and dist/docs/contract.md: every rule the command reports and every spec section a
 *   finding cites, from the catalog (contract-pages.ts);
 * - dist/source-api.openapi.json: the source API's OpenAPI document, from the builder the service serves.
 *
 * Bundling, not a second copy: the service keeps importing lambdas/domain/... and the package is made
 * from the same files each time it is packed. The bundle may reach only the kit's pure code and valibot;
 * anything else (the AWS SDK, DynamoDB, the onboarding API) fails the build.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { buildSourceApiOpenApi } from "../../../lambdas/domain/preflight/source-api-openapi";
import { KIT_RULES } from "../../../lambdas/domain/source-contract/rules/catalog";
import { checksOf, CONTRACT_PAGE, contractInShort, contractPage, OPENAPI_FILE, RULES_PAGE, rulesPage } from "./contract-pages";

const PACKAGE = resolve(import.meta.dirname, "..");
const ROOT = resolve(PACKAGE, "../..");
const DIST = join(PACKAGE, "dist");
const BIN_FILE = "crm-preflight.mjs";

/** What the bundle may hold, as paths from the repository's root: the CLI, the kit's pure domain, valibot. */
const ALLOWED_INPUTS = [
  /^bin\/preflight(\.ts|\/)/,
  /^lambdas\/domain\/(preflight|source-contract|core|records)\//,
  /^node_modules\/valibot\//,
];

async function bundleCli(): Promise<void> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ["bin/preflight.ts"],
    outfile: join(DIST, BIN_FILE),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    metafile: true,
    logLevel: "warning",
  });
  const outside = Object.keys(result.metafile.inputs).filter((input) => !ALLOWED_INPUTS.some((allowed) => allowed.test(input)));
  if (outside.length > 0) throw new Error(`the bundle reaches beyond the kit's pure code: ${outside.join(", ")}`);
  // valibot is bundled, so its MIT notice travels with it.
  writeFileSync(join(DIST, "THIRD-PARTY-LICENSES.md"), `# valibot\n\n${readFileSync(join(ROOT, "node_modules/valibot/LICENSE.md"), "utf8")}`);
}

function writePages(): void {
  const rulesDoc = readFileSync(join(ROOT, "docs/rules.md"), "utf8");
  const checks = checksOf(rulesDoc);
  const inShort = contractInShort(readFileSync(join(ROOT, "docs/source-api.md"), "utf8"));
  mkdirSync(join(DIST, "docs"), { recursive: true });
  writeFileSync(join(DIST, RULES_PAGE), rulesPage(KIT_RULES, checks));
  writeFileSync(join(DIST, CONTRACT_PAGE), contractPage(KIT_RULES, inShort, checks));
  writeFileSync(join(DIST, OPENAPI_FILE), `${JSON.stringify(buildSourceApiOpenApi(), null, 2)}\n`);
}

try {
  rmSync(DIST, { recursive: true, force: true });
  await bundleCli();
  writePages();
  process.stderr.write(`crm-preflight: built ${relative(ROOT, DIST)}/\n`);
} catch (error) {
  // One line for the packer (npm pack stops on it), not a stack.
  process.stderr.write(`crm-preflight: build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
