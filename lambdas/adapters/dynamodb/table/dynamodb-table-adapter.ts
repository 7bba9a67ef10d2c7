import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { atStoreEdge } from "../../aws/aws-busy-errors";

/** What every adapter on the single table is built with. */
export interface DynamoDbTableOptions {
  /** Injected: an adapter never builds a client (endpoint, credentials and retries are the caller's). */
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

/**
 * The base of every adapter on the single table (stores, the purge queue, the
 * rate limiter): the client it sends on, with busy DynamoDB errors turned into
 * StoreUnavailableError at this edge (aws-busy-errors.ts), and the table's name.
 */
export abstract class DynamoDbTableAdapter {
  protected readonly client: Pick<DynamoDBClient, "send">;
  protected readonly tableName: string;

  constructor(options: DynamoDbTableOptions) {
    this.client = atStoreEdge(options.client);
    this.tableName = options.tableName;
  }
}
