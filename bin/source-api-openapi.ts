/**
 * Prints the source API's OpenAPI 3.1 document (the contract a customer's CRM
 * implements), built from the schemas the sync validates with:
 *
 *   npm run --silent source-api-openapi > source-api.openapi.json
 */
import { buildSourceApiOpenApi } from "../lambdas/domain/preflight/source-api-openapi";

process.stdout.write(`${JSON.stringify(buildSourceApiOpenApi(), null, 2)}\n`);
