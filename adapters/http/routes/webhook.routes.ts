import { z } from "zod";
import { presentDeliveryAttempt, presentWebhook } from "../presenters.ts";
import { created, paged, route } from "../route.ts";
import { webhookEventTypes, type WebhookEventType } from "../../../core/webhooks/webhook-event.ts";
import type { Callback } from "../route.ts";
import {
  DeliveryAttemptView,
  IssuedWebhookView,
  NewWebhookBody,
  PageQuery,
  webhookEventBodies,
  WebhookIdParam,
  WebhookView,
} from "../schemas.ts";

const sentWhen: Record<WebhookEventType, string> = {
  "order.placed": "An order was placed. `data`: the order.",
  "order.completed": "Staff completed an order. `data`: the order.",
  "order.cancelled": "An order was cancelled (its units are back in stock). `data`: the order as it was.",
  "pet.status_changed":
    "A pet's status moved, by staff or because of its stock and orders. `data`: `petId`, `from`, `to`.",
  "inventory.changed":
    "A pet's stock moved: `delta` when an order took (negative) or gave back units, `quantity` when staff set it.",
};

/** Standard Webhooks headers, on every request. */
const signatureHeaders = {
  "webhook-id": "The message: the same on every retry of it; receivers should drop one they have already processed.",
  "webhook-timestamp": "When this attempt was sent, in Unix seconds; refuse requests far from your clock (replays).",
  "webhook-signature":
    "`v1,<base64 HMAC-SHA256>` over `webhook-id.webhook-timestamp.body`, keyed with the base64-decoded part of the secret after `whsec_`; " +
    "two, space-separated, for 24 hours after a secret rotation.",
};

const eventCallbacks: Record<string, Callback> = Object.fromEntries(
  webhookEventTypes.map((type) => [
    type,
    {
      summary: `${type} webhook`,
      description: sentWhen[type],
      urlField: "url",
      body: webhookEventBodies[type],
      headers: signatureHeaders,
    },
  ]),
);

export const webhookRoutes = [
  route({
    method: "POST",
    path: "/admin/webhooks",
    operationId: "createWebhook",
    tag: "Webhooks",
    summary: "Subscribe to events",
    description:
      "The service POSTs each event of the listed types to `url`, signed per Standard Webhooks with the `secret` of this response (shown only here). " +
      "Targets must be http(s); private, loopback, link-local and metadata addresses are refused (`webhook_target_refused`). " +
      "The request bodies it sends are described under callbacks.",
    access: "webhooks:manage",
    input: { body: NewWebhookBody },
    output: {
      status: 201,
      description: "The subscription, with its secret.",
      body: IssuedWebhookView,
      headers: ["Location"],
    },
    errors: ["webhook_target_refused"],
    callbacks: eventCallbacks,
    handle: async ({ body }, _actor, { useCases, clock }) => {
      const { subscription, secret } = await useCases.createWebhookSubscription.execute(body);
      return created({ ...presentWebhook(subscription, clock.now()), secret }, `/admin/webhooks/${subscription.id}`);
    },
  }),
  route({
    method: "GET",
    path: "/admin/webhooks",
    operationId: "listWebhooks",
    tag: "Webhooks",
    summary: "List webhook subscriptions",
    description: "Without secrets.",
    access: "webhooks:manage",
    input: { query: PageQuery },
    output: {
      status: 200,
      description: "A page of subscriptions, in ascending id order.",
      body: z.array(WebhookView),
      headers: ["Link"],
    },
    handle: async ({ query }, _actor, { useCases, clock }) => {
      const now = clock.now();
      return paged(await useCases.listWebhookSubscriptions.execute(query), (s) => presentWebhook(s, now));
    },
  }),
  route({
    method: "GET",
    path: "/admin/webhooks/{webhookId}",
    operationId: "getWebhook",
    tag: "Webhooks",
    summary: "Get a webhook subscription",
    access: "webhooks:manage",
    input: { path: WebhookIdParam },
    output: { status: 200, description: "The subscription, without its secret.", body: WebhookView },
    handle: async ({ path }, _actor, { useCases, clock }) =>
      presentWebhook(await useCases.getWebhookSubscription.execute(path.webhookId), clock.now()),
  }),
  route({
    method: "DELETE",
    path: "/admin/webhooks/{webhookId}",
    operationId: "deleteWebhook",
    tag: "Webhooks",
    summary: "Delete a webhook subscription",
    description: "Nothing more is sent to it, not even messages already queued.",
    access: "webhooks:manage",
    input: { path: WebhookIdParam },
    output: { status: 204, description: "Deleted." },
    handle: ({ path }, _actor, { useCases }) => useCases.deleteWebhookSubscription.execute(path.webhookId),
  }),
  route({
    method: "POST",
    path: "/admin/webhooks/{webhookId}/rotate-secret",
    operationId: "rotateWebhookSecret",
    tag: "Webhooks",
    summary: "Rotate the signing secret",
    description:
      "A new secret signs from now on, shown only in this response. The previous one keeps signing for 24 hours: until then every request carries two signatures.",
    access: "webhooks:manage",
    input: { path: WebhookIdParam },
    output: { status: 200, description: "The subscription, with its new secret.", body: IssuedWebhookView },
    handle: async ({ path }, _actor, { useCases, clock }) => {
      const { subscription, secret } = await useCases.rotateWebhookSecret.execute(path.webhookId);
      return { ...presentWebhook(subscription, clock.now()), secret };
    },
  }),
  route({
    method: "GET",
    path: "/admin/webhooks/{webhookId}/deliveries",
    operationId: "listWebhookDeliveries",
    tag: "Webhooks",
    summary: "Recent delivery attempts",
    description: "The newest 100 attempts of the last 7 days, newest first.",
    access: "webhooks:manage",
    input: { path: WebhookIdParam },
    output: { status: 200, description: "Attempts, newest first.", body: z.array(DeliveryAttemptView) },
    handle: async ({ path }, _actor, { useCases }) =>
      (await useCases.listWebhookDeliveries.execute(path.webhookId)).map(presentDeliveryAttempt),
  }),
];
