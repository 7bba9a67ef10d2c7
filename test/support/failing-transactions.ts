import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { testDynamoDbClient } from "./dynamodb";

/**
 * A client on the test's DynamoDB Local whose TransactWriteItems calls fail,
 * before they reach DynamoDB, from the n-th on (`from`) or only the n-th
 * (`only`): a crash between a page's transactions.
 */
export function clientFailingTransactions(n: number, which: "from" | "only"): DynamoDBClient {
  const failing = testDynamoDbClient();
  let calls = 0;
  failing.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === "TransactWriteItemsCommand") {
        calls += 1;
        if (which === "from" ? calls >= n : calls === n) throw new Error(`injected failure of transaction ${calls}`);
      }
      return next(args);
    },
    { step: "initialize", name: "failTransactions" },
  );
  return failing;
}
