import { SourceHardError } from "../../domain/core/errors";
import { PAGE_SIZE } from "../../domain/core/limits";
import type { SourcePageRequest } from "../../domain/core/ports/source-client";
import { sourceBaseUrlAllowed } from "../../domain/source-contract/rules/failure-rules";

/**
 * `{base_url}{path}?limit=100&page=N[&updated_since=...]`. URLSearchParams
 * percent-encodes the timestamp, so an offset's `+` never arrives as a space.
 */
export function sourcePageUrl(baseUrl: string, request: SourcePageRequest): string {
  let url: URL;
  try {
    // The stored base URL has no trailing slash; strip again so `//leads` can never happen.
    url = new URL(`${baseUrl.replace(/\/+$/, "")}${request.path}`);
  } catch {
    throw new SourceHardError("base URL is not a valid URL", { rule: sourceBaseUrlAllowed.id });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new SourceHardError(`base URL scheme ${url.protocol} is not http or https`, { rule: sourceBaseUrlAllowed.id });
  }
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(request.page) });
  if (request.updatedSince !== undefined) query.set("updated_since", request.updatedSince);
  // Replaces any query of the base URL: the spec's base URL is a root path, not a query.
  url.search = query.toString();
  url.hash = "";
  return url.href;
}
