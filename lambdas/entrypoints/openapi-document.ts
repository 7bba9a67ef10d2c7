import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { openApiDocument } from "../onboarding/http/openapi";

/**
 * Lambda entry of the public `GET /api/v1/openapi.json` route alone: the
 * document is built from the route table and schemas, with no store, key or
 * state machine, so this function gets no table, KMS or Step Functions rights
 * (lib/onboarding-api.ts). Built once per process.
 */
const body = JSON.stringify(openApiDocument());

export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: { "content-type": "application/json" },
  body,
});
