import {
  GetItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
} from "@aws-sdk/client-dynamodb";
import { LinkChangedError } from "../../../domain/analytics/analytics-errors";
import type { ExplicitLink } from "../../../domain/analytics/manager-store";
import {
  EMAIL_SK_PREFIX,
  MANAGER_ATTR,
  USER_LINK_SK_PREFIX,
  emailSortKey,
  linkPartitionKey,
  memberSortKey,
  membersPartitionKey,
  userLinkSortKey,
} from "./manager-keys";
import { queryAll } from "../table/query-all";

type Item = Record<string, AttributeValue>;
type Client = Pick<DynamoDBClient, "send">;

/*
 * The owner's links (LINK#<connection>) and the members seen (MEMBERS#<account>),
 * for DynamoDbManagerStore. A link is two items written together: the source
 * user's (who it is linked to) and the member's (which source user they have on
 * this connection), so a member never has two. Each change is one transaction
 * conditioned on the items as read, so two owners changing links at once
 * cannot leave them crossed: the later one is refused (LinkChangedError).
 */

const key = (pk: string, sk: string): Item => ({ [MANAGER_ATTR.pk]: { S: pk }, [MANAGER_ATTR.sk]: { S: sk } });

function partitionItems(client: Client, tableName: string, pk: string, prefix: string): Promise<Item[]> {
  return queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
    ExpressionAttributeNames: { "#pk": MANAGER_ATTR.pk, "#sk": MANAGER_ATTR.sk },
    ExpressionAttributeValues: { ":pk": { S: pk }, ":prefix": { S: prefix } },
    ConsistentRead: true,
  });
}

async function getItem(client: Client, tableName: string, pk: string, sk: string): Promise<Item | null> {
  const out = await client.send(new GetItemCommand({ TableName: tableName, Key: key(pk, sk), ConsistentRead: true }));
  return out.Item ?? null;
}

export async function listLinks(client: Client, tableName: string, connectionId: string): Promise<ExplicitLink[]> {
  const items = await partitionItems(client, tableName, linkPartitionKey(connectionId), USER_LINK_SK_PREFIX);
  return items.map((item) => ({
    sourceUserId: item[MANAGER_ATTR.sourceUser]?.S ?? "",
    memberId: item[MANAGER_ATTR.member]?.S ?? null,
    at: item[MANAGER_ATTR.at]?.S ?? "",
  }));
}

/** The condition that an item is still as read: absent, or with the same member (or still unlinked). */
function unchanged(read: Item | null, attribute: string): Pick<NonNullable<TransactWriteItem["Put"]>, "ConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"> {
  if (read === null) return { ConditionExpression: "attribute_not_exists(#pk)", ExpressionAttributeNames: { "#pk": MANAGER_ATTR.pk } };
  const value = read[attribute]?.S;
  return value === undefined
    ? { ConditionExpression: "attribute_exists(#pk) AND (attribute_type(#v, :null) OR attribute_not_exists(#v))", ExpressionAttributeNames: { "#pk": MANAGER_ATTR.pk, "#v": attribute }, ExpressionAttributeValues: { ":null": { S: "NULL" } } }
    : { ConditionExpression: "#v = :v", ExpressionAttributeNames: { "#v": attribute }, ExpressionAttributeValues: { ":v": { S: value } } };
}

/** Sets one source user's link: to a member, unlinked (null), or back to email matching ("automatic"). */
export async function setLink(
  client: Client,
  tableName: string,
  change: { connectionId: string; sourceUserId: string; target: string | null | "automatic"; at: string },
): Promise<void> {
  const pk = linkPartitionKey(change.connectionId);
  const userSk = userLinkSortKey(change.sourceUserId);
  const current = await getItem(client, tableName, pk, userSk);
  const currentMember = current?.[MANAGER_ATTR.member]?.S ?? null;
  const actions: TransactWriteItem[] = [];
  // The member this user was linked to loses their index item (it named this user).
  const dropMemberOf = (memberId: string) =>
    actions.push({
      Delete: { TableName: tableName, Key: key(pk, memberSortKey(memberId)), ...unchanged({ [MANAGER_ATTR.sourceUser]: { S: change.sourceUserId } }, MANAGER_ATTR.sourceUser) },
    });
  const userItem = (member: string | null): Item => ({
    ...key(pk, userSk),
    [MANAGER_ATTR.sourceUser]: { S: change.sourceUserId },
    [MANAGER_ATTR.member]: member === null ? { NULL: true } : { S: member },
    [MANAGER_ATTR.at]: { S: change.at },
  });

  if (change.target === "automatic") {
    if (current === null) return;
    actions.push({ Delete: { TableName: tableName, Key: key(pk, userSk), ...unchanged(current, MANAGER_ATTR.member) } });
    if (currentMember !== null) dropMemberOf(currentMember);
  } else if (change.target === null) {
    if (current !== null && currentMember === null) return;
    actions.push({ Put: { TableName: tableName, Item: userItem(null), ...unchanged(current, MANAGER_ATTR.member) } });
    if (currentMember !== null) dropMemberOf(currentMember);
  } else {
    const member = change.target;
    if (currentMember === member) return;
    const memberSk = memberSortKey(member);
    const index = await getItem(client, tableName, pk, memberSk);
    const previousUser = index?.[MANAGER_ATTR.sourceUser]?.S ?? null;
    actions.push({ Put: { TableName: tableName, Item: userItem(member), ...unchanged(current, MANAGER_ATTR.member) } });
    if (currentMember !== null) dropMemberOf(currentMember);
    if (previousUser !== null && previousUser !== change.sourceUserId) {
      // The member's earlier source user on this connection goes back to having no decision.
      actions.push({ Delete: { TableName: tableName, Key: key(pk, userLinkSortKey(previousUser)), ...unchanged({ [MANAGER_ATTR.member]: { S: member } }, MANAGER_ATTR.member) } });
    }
    actions.push({
      Put: {
        TableName: tableName,
        Item: { ...key(pk, memberSk), [MANAGER_ATTR.member]: { S: member }, [MANAGER_ATTR.sourceUser]: { S: change.sourceUserId }, [MANAGER_ATTR.at]: { S: change.at } },
        ...unchanged(index, MANAGER_ATTR.sourceUser),
      },
    });
  }
  try {
    await client.send(new TransactWriteItemsCommand({ TransactItems: actions }));
  } catch (error) {
    if (error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((reason) => reason.Code === "ConditionalCheckFailed")) {
      throw new LinkChangedError();
    }
    throw error;
  }
}

/**
 * Remembers a member's email (normalised). The member's item holds their
 * current email; the email's item names the first member seen with it and is
 * never taken over by another, so one email links one member; a member who
 * saw it taken tries again at their next request, and takes it once it is
 * free. A member whose email changed gives up the old email's item. A race
 * with another request of the same member loses quietly: the next request
 * records it. A member who holds their email costs one read per request.
 */
export async function recordMember(client: Client, tableName: string, seen: { account: string; memberId: string; email: string }): Promise<void> {
  const pk = membersPartitionKey(seen.account);
  const memberSk = memberSortKey(seen.memberId);
  const current = await getItem(client, tableName, pk, memberSk);
  const previousEmail = current?.[MANAGER_ATTR.email]?.S ?? null;
  if (previousEmail === seen.email && current?.[MANAGER_ATTR.holdsEmail]?.BOOL === true) return;
  const emailItem = await getItem(client, tableName, pk, emailSortKey(seen.email));
  const holder = emailItem?.[MANAGER_ATTR.member]?.S ?? null;
  if (previousEmail === seen.email && holder !== null) return;
  const actions: TransactWriteItem[] = [
    {
      Put: {
        TableName: tableName,
        Item: { ...key(pk, memberSk), [MANAGER_ATTR.member]: { S: seen.memberId }, [MANAGER_ATTR.email]: { S: seen.email }, [MANAGER_ATTR.holdsEmail]: { BOOL: emailItem === null || holder === seen.memberId } },
        ...unchanged(current, MANAGER_ATTR.email),
      },
    },
  ];
  if (previousEmail !== null && previousEmail !== seen.email) {
    actions.push({ Delete: { TableName: tableName, Key: key(pk, emailSortKey(previousEmail)), ...unchanged({ [MANAGER_ATTR.member]: { S: seen.memberId } }, MANAGER_ATTR.member) } });
  }
  if (emailItem === null) {
    actions.push({
      Put: { TableName: tableName, Item: { ...key(pk, emailSortKey(seen.email)), [MANAGER_ATTR.email]: { S: seen.email }, [MANAGER_ATTR.member]: { S: seen.memberId } }, ...unchanged(null, MANAGER_ATTR.member) },
    });
  }
  try {
    await client.send(new TransactWriteItemsCommand({ TransactItems: actions }));
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
  }
}

export async function membersByEmail(client: Client, tableName: string, account: string): Promise<Map<string, string>> {
  const items = await partitionItems(client, tableName, membersPartitionKey(account), EMAIL_SK_PREFIX);
  return new Map(items.flatMap((item) => {
    const email = item[MANAGER_ATTR.email]?.S;
    const member = item[MANAGER_ATTR.member]?.S;
    return email === undefined || member === undefined ? [] : [[email, member] as const];
  }));
}
