import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { TableAction } from "../../lib/table-access";
import { testDynamoDbClient } from "../support/dynamodb";

/** The IAM action(s) a command needs; transactions by the item actions inside them. */
export function actionsOf(commandName: string, input: Record<string, any>): TableAction[] {
  const name = commandName.replace(/Command$/, "");
  if (name === "TransactWriteItems") {
    const kinds: Record<string, TableAction> = { Put: "dynamodb:PutItem", Update: "dynamodb:UpdateItem", Delete: "dynamodb:DeleteItem", ConditionCheck: "dynamodb:ConditionCheckItem" };
    return (input.TransactItems as Record<string, unknown>[]).flatMap((item) => Object.keys(item).map((kind) => kinds[kind]!));
  }
  if (name === "TransactGetItems") return ["dynamodb:GetItem"];
  return [`dynamodb:${name}` as TableAction];
}

/**
 * A client of the run's DynamoDB Local that adds to `recorded` (under `name`) the IAM action of each command it sends:
 * what a function's role must allow, read off DynamoDB Local rather than written by hand.
 */
export function recordingClient<Name>(recorded: Map<Name, Set<TableAction>>, name: Name): DynamoDBClient {
  const client = testDynamoDbClient();
  const actions = recorded.get(name) ?? new Set<TableAction>();
  recorded.set(name, actions);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      for (const action of actionsOf(context.commandName as string, args.input as Record<string, any>)) actions.add(action);
      return next(args);
    },
    { step: "initialize", name: "recordTableActions" },
  );
  return client;
}
