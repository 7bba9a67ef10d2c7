import { SyncError } from "../core/errors";

/**
 * The source's base_url points to, or resolves to, an
 * address the service must not reach from inside the cloud: loopback, private,
 * link-local, cloud metadata and the like. Not retried. The detail names the
 * host and the class of address, never the token or the URL's query.
 */
export class SourceAddressRefusedError extends SyncError {
  override readonly name = "SourceAddressRefusedError";
  readonly retryable = false;
}
