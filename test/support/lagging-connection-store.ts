import { DynamoDbConnectionStore } from "../../lambdas/adapters/dynamodb/connections/dynamodb-connection-store";
import type { ReadConsistency } from "../../lambdas/domain/core/ports/connection-store";
import type { StoredConnection } from "../../lambdas/domain/core/connection";

/**
 * The connection store as it answers while a DynamoDB replica lags a write:
 * every eventually consistent get returns `served` (an older version of the
 * connection, or null for one the replica has not seen yet); strong reads and
 * every other method go to the table. DynamoDB Local has one copy of each
 * item, so this double at our own port is how a test gets a stale read.
 */
export class LaggingConnectionStore extends DynamoDbConnectionStore {
  /** The eventually consistent reads answered with `served`. */
  staleReads = 0;

  constructor(
    options: ConstructorParameters<typeof DynamoDbConnectionStore>[0],
    private readonly served: StoredConnection | null,
  ) {
    super(options);
  }

  override async get(
    businessAccountId: string,
    connectionId: string,
    options?: { readonly consistency?: ReadConsistency },
  ): Promise<StoredConnection | null> {
    if (options?.consistency !== "eventual") return super.get(businessAccountId, connectionId, options);
    this.staleReads += 1;
    return this.served;
  }
}
