import { consoleRoutes } from "./console/console.routes.ts";
import { referenceRoutes } from "./openapi/reference.ts";
import type { Route } from "./route.ts";
import { accountRoutes } from "./routes/account.routes.ts";
import { eventRoutes } from "./routes/event.routes.ts";
import { adminRoutes } from "./routes/admin.routes.ts";
import { categoryRoutes } from "./routes/category.routes.ts";
import { petRoutes } from "./routes/pet.routes.ts";
import { probeRoutes } from "./routes/probe.routes.ts";
import { storeRoutes } from "./routes/store.routes.ts";
import { webhookRoutes } from "./routes/webhook.routes.ts";

/** Every operation the service answers: what the app serves and what the OpenAPI documents describe. */
export const routeTable: readonly Route[] = [
  ...petRoutes,
  ...categoryRoutes,
  ...storeRoutes,
  ...accountRoutes,
  ...eventRoutes,
  ...adminRoutes,
  ...webhookRoutes,
  ...referenceRoutes,
  ...consoleRoutes,
  ...probeRoutes,
];
