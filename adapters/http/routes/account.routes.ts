import { windowNames } from "../../../core/rate-limiting/windows.ts";
import { route } from "../route.ts";
import { MeView } from "../schemas.ts";

export const accountRoutes = [
  route({
    method: "GET",
    path: "/me",
    operationId: "getMe",
    tag: "Account",
    summary: "Who am I",
    description: "The calling API key: its id, label, role, plan, limits and today's usage. Never its secret.",
    access: "any-key",
    output: { status: 200, description: "The calling key.", body: MeView },
    handle: async (_input, actor, { useCases, clock }) => {
      const { key, limits, usage } = await useCases.getMe.execute(actor);
      const now = clock.now();
      return {
        id: key.id,
        label: key.label,
        role: key.role,
        plan: key.plan,
        limits,
        usage: Object.fromEntries([
          ...windowNames.map((name) => [name, usage[name].count]),
          ...windowNames.map((name) => [`${name}ResetsAt`, usage[name].resetsAt.toISOString()]),
        ]),
        ...(key.bannedUntil && key.bannedUntil > now ? { bannedUntil: key.bannedUntil.toISOString() } : {}),
      };
    },
  }),
];
