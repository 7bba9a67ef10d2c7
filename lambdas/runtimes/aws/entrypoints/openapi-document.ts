import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { publicDocumentOf } from "../../../handlers/http/public-documents";

/**
 * Lambda entry of the public routes alone (the onboarding API's description and
 * the source API's contract): documents built from the route table and the
 * schemas, with no store, key or state machine, so this function gets no
 * table, KMS or Step Functions rights (lib/onboarding-api.ts).
 */
export const handler = async (event: Pick<APIGatewayProxyEventV2, "routeKey">): Promise<APIGatewayProxyStructuredResultV2> => {
  const document = publicDocumentOf(event.routeKey);
  if (document === undefined) return { statusCode: 404, headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "Not Found" }) };
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(document()) };
};
