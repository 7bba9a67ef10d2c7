import { buildSourceApiOpenApi } from "../../domain/preflight/source-api-openapi";
import { openApiDocument } from "./openapi";
import { OPENAPI_ROUTE_KEY, SOURCE_API_OPENAPI_ROUTE_KEY } from "./routes";

/** What each public route serves: the API descriptions, each built once per process on first use. */
const PUBLIC_DOCUMENTS = new Map<string, () => unknown>([
  [OPENAPI_ROUTE_KEY, builtOnce(openApiDocument)],
  [SOURCE_API_OPENAPI_ROUTE_KEY, builtOnce(buildSourceApiOpenApi)],
]);

/** The document a public route key serves; undefined for every other route. */
export function publicDocumentOf(routeKey: string): (() => unknown) | undefined {
  return PUBLIC_DOCUMENTS.get(routeKey);
}

function builtOnce<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
