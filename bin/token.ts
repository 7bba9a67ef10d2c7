/**
 * Prints a session token valid for the local runtime, and nothing else, on stdout:
 *
 *   npm run --silent token -- --account ACC --role owner|ROP|MOP [--user U] [--email E] [--ttl SECONDS] [--data-dir DIR]
 *
 * `--email` adds the standard `email` claim: a MOP whose email is a CRM user's is linked to that user.
 *
 * The token is signed with the local identity provider's key in the data dir
 * (default: $DATA_DIR, else ./.data), the one the local runtime verifies with.
 * Bad arguments: a message and the usage on stderr, exit code 2.
 */
import { tokenCommand } from "./token/token-command";

tokenCommand(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`token: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
