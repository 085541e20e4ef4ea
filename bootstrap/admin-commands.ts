import { parseArgs } from "node:util";
import { z } from "zod";
import { presentApiKey } from "../adapters/http/presenters.ts";
import type { UseCases } from "../adapters/http/use-cases.ts";
import { plans, type ApiKey, type ApiKeyDraft } from "../core/access/api-key.ts";
import { roles } from "../core/access/permissions.ts";
import { rateWindows, windowNames, type RateLimits } from "../core/rate-limiting/windows.ts";
import type { Clock } from "../core/shared/clock.port.ts";

/** A command line that cannot run as written: exit 2, with this one-line message. */
export class UsageError extends Error {}

export const adminUsage = [
  "usage: npm run admin -- <command>",
  `  create-key --label L --role customer|staff|admin --plan free|pro|business|enterprise [${windowNames.map((name) => `--per-${name} N`).join(" ")}]`,
  "  list-keys",
  "  revoke-key ID",
  "  unban ID",
  "  rotate-admin-key    a new admin key; revokes the bootstrap and earlier rotated admin keys",
].join("\n");

type AdminUseCases = Pick<UseCases, "createApiKey" | "listApiKeys" | "revokeApiKey" | "unbanApiKey" | "getApiKey">;

const ROTATED_LABEL = "admin (rotate-admin-key)";
/** Admin keys whose secrets came from outside the key API: what rotate-admin-key replaces. */
const replacedByRotation = /^(bootstrap admin \(|admin \(rotate-admin-key\)$)/;

const positive = (name: string) =>
  z
    .string({ error: `--${name} needs a value` })
    .regex(/^[1-9]\d{0,9}$/, `--${name} must be a positive whole number`)
    .transform(Number);
/** `per-minute`, `per-day`, …: one option per rate-limit window. */
const limitOptions = windowNames.map((name) => `per-${name}`);

const createOptions = z
  .object({
    label: z
      .string({ error: "--label is required" })
      .trim()
      .min(1, "--label must not be empty")
      .max(100, "--label is at most 100 characters"),
    role: z.enum(roles, { error: `--role must be one of ${roles.join(", ")}` }),
    plan: z.enum(plans, { error: `--plan must be one of ${plans.join(", ")}` }),
    ...Object.fromEntries(limitOptions.map((option) => [option, positive(option).optional()])),
  })
  .refine(
    (o: Record<string, unknown>) => new Set(limitOptions.map((option) => o[option] === undefined)).size === 1,
    `${limitOptions.map((option) => `--${option}`).join(" and ")} go together`,
  );

const keyId = (value: string | undefined): number => {
  if (value === undefined || !/^[1-9]\d{0,15}$/.test(value))
    throw new UsageError(`expected a key id (a positive whole number), got ${JSON.stringify(value ?? "")}`);
  return Number(value);
};

const onlyPositionals = (args: string[], count: number, command: string): string[] => {
  const { positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: {} });
  if (positionals.length !== count)
    throw new UsageError(`${command} takes ${count === 0 ? "no arguments" : `${count} argument`}`);
  return positionals;
};

export type AdminCommand =
  | { name: "create-key"; draft: ApiKeyDraft }
  | { name: "list-keys" }
  | { name: "revoke-key"; id: number }
  | { name: "unban"; id: number }
  | { name: "rotate-admin-key" };

/** Reads the command line, before any store is opened; a UsageError names what is wrong. */
export const parseAdminCommand = (argv: string[]): AdminCommand => {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case "create-key": {
        const { values, positionals } = parseArgs({
          args,
          strict: true,
          allowPositionals: true,
          options: {
            label: { type: "string" },
            role: { type: "string" },
            plan: { type: "string" },
            ...Object.fromEntries(limitOptions.map((option) => [option, { type: "string" as const }])),
          },
        });
        if (positionals.length > 0)
          throw new UsageError(`create-key takes options only, not ${JSON.stringify(positionals[0])}`);
        const parsed = createOptions.safeParse(values);
        if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? "invalid options");
        const o = parsed.data;
        const given = o as unknown as Record<string, number | undefined>;
        const limits =
          given[limitOptions[0]!] === undefined
            ? undefined
            : (Object.fromEntries(
                windowNames.map((name) => [rateWindows[name].limitField, given[`per-${name}`] ?? 0]),
              ) as RateLimits);
        return { name: command, draft: { label: o.label, role: o.role, plan: o.plan, limits } };
      }
      case "list-keys":
      case "rotate-admin-key":
        onlyPositionals(args, 0, command);
        return { name: command };
      case "revoke-key":
      case "unban":
        return { name: command, id: keyId(onlyPositionals(args, 1, command)[0]) };
      default:
        throw new UsageError(
          `unknown command ${JSON.stringify(command)}; try create-key, list-keys, revoke-key, unban or rotate-admin-key`,
        );
    }
  } catch (error) {
    // parseArgs reports unknown or malformed options with its own error codes.
    if (error instanceof Error && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))
      throw new UsageError(error.message);
    throw error;
  }
};

/** Every key, page after page. */
const allKeys = async (useCases: AdminUseCases): Promise<ApiKey[]> => {
  const all: ApiKey[] = [];
  for (let after: number | undefined; ;) {
    const page = await useCases.listApiKeys.execute({ limit: 100, after });
    all.push(...page.items);
    if (page.nextAfter === undefined) return all;
    after = page.nextAfter;
  }
};

/** Runs one admin command through the use cases; the lines to print on stdout (JSON each). */
export const runAdminCommand = async (
  command: AdminCommand,
  useCases: AdminUseCases,
  clock: Clock,
): Promise<string[]> => {
  const show = (key: ApiKey) => presentApiKey(key, clock.now());
  switch (command.name) {
    case "create-key": {
      const { key, secret } = await useCases.createApiKey.execute(command.draft);
      return [JSON.stringify({ ...show(key), key: secret })];
    }
    case "list-keys":
      return [JSON.stringify((await allKeys(useCases)).map(show))];
    case "revoke-key":
      await useCases.revokeApiKey.execute(command.id);
      return [JSON.stringify(show(await useCases.getApiKey.execute(command.id)))];
    case "unban":
      return [JSON.stringify(show(await useCases.unbanApiKey.execute(command.id)))];
    case "rotate-admin-key": {
      const { key, secret } = await useCases.createApiKey.execute({
        label: ROTATED_LABEL,
        role: "admin",
        plan: "business",
      });
      const revoked: number[] = [];
      for (const old of await allKeys(useCases)) {
        if (old.id === key.id || old.revokedAt || old.role !== "admin" || !replacedByRotation.test(old.label)) continue;
        await useCases.revokeApiKey.execute(old.id);
        revoked.push(old.id);
      }
      return [JSON.stringify({ revoked }), JSON.stringify({ ...show(key), key: secret })];
    }
  }
};
