import { awsWebhookDeliveryDeps, observed } from "../aws-composition";
import { makeWebhookDeliveryHandler } from "../../../handlers/webhooks/webhook-delivery-handler";

/** Lambda entry of the webhooks' deliveries: the rule on the service's events, and the minute's schedule. */
export const handler = observed(makeWebhookDeliveryHandler(awsWebhookDeliveryDeps()));
