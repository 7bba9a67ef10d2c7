/** Where and as whom the source is called. The token is plaintext only inside the page task. */
export interface SourceConnection {
  readonly baseUrl: string;
  readonly token: string;
}

export interface SourcePageRequest {
  /** Endpoint path, e.g. `/leads`. */
  readonly path: string;
  /** 1-based page number. */
  readonly page: number;
  /** ISO-8601 with offset; absent for /pipelines and /users. */
  readonly updatedSince?: string;
}

/** One parsed envelope. `data` is still unvalidated source JSON. */
export interface SourcePage {
  readonly data: readonly unknown[];
  readonly hasMore: boolean;
}

/** Calls the customer's source API (HTTP in every runtime). */
export interface SourceClient {
  /** Throws the Source*Error of lambdas/domain/core/errors.ts for every non-200 outcome. */
  fetchPage(connection: SourceConnection, request: SourcePageRequest): Promise<SourcePage>;
}
