import type { Container, ServiceIdentifier } from "inversify";
import {
  useCaseFactories,
  type Dependency,
  type UseCaseDependencies,
  type UseCases,
  type UseCaseFactory,
} from "../adapters/http/use-cases.ts";
import { CachedApiKeys } from "../core/access/cached-api-keys.ts";
import { EnsureAdminKey } from "../core/access/ensure-admin-key.ts";
import { MarkDrops } from "../core/orders/mark-drops.ts";
import { StockHints } from "../core/orders/stock-hints.ts";
import type { Config } from "./config.ts";
import { ports as p, tokens as t, useCaseTokens, type Ports } from "./tokens.ts";

/** Each port of the opened stores under its own token. */
export const bindPorts = (container: Container, stores: Ports): void => {
  for (const name of Object.keys(p) as (keyof Ports)[]) container.bind(p[name] as never).toConstantValue(stores[name]);
};

/** The token each dependency a use case may name is bound under. */
const dependencyTokens: { readonly [N in Dependency]-?: ServiceIdentifier<UseCaseDependencies[N]> } = {
  ...p,
  clock: t.clock,
  secrets: t.secrets,
  cachedApiKeys: t.cachedApiKeys,
  webhookSigner: t.webhookSigner,
  addressResolver: t.addressResolver,
  banPolicy: t.banPolicy,
  webhookTargets: t.webhookTargets,
  stockHints: t.stockHints,
  markDrops: t.markDrops,
};

/**
 * Each entry of `useCaseFactories` under its own token, resolving the dependencies it names (the container's default
 * scope is singleton: built once, at start-up). Core classes need no decorators: these factories make them.
 */
export const bindUseCases = (container: Container): void => {
  container
    .bind(t.cachedApiKeys)
    .toResolvedValue((store, clock) => new CachedApiKeys(store, clock), [p.apiKeys, t.clock]);
  container.bind(t.banPolicy).toResolvedValue((config: Config) => config.ban, [t.config]);
  container.bind(t.stockHints).toConstantValue(new StockHints());
  container.bind(t.markDrops).toConstantValue(new MarkDrops());
  container
    .bind(t.webhookTargets)
    .toResolvedValue((config: Config) => ({ allowPrivateTargets: config.webhooks.allowPrivateTargets }), [t.config]);
  // Start-up, on the store itself: it must see every key there is, not a cached view.
  container
    .bind(t.ensureAdminKey)
    .toResolvedValue(
      (apiKeys, adminGuard, ids, secrets, clock) => new EnsureAdminKey({ apiKeys, adminGuard, ids, secrets, clock }),
      [p.apiKeys, p.adminGuard, p.ids, t.secrets, t.clock],
    );

  const names = Object.keys(useCaseFactories) as (keyof UseCases)[];
  for (const name of names) {
    const { needs, make } = useCaseFactories[name] as UseCaseFactory<Dependency, unknown>;
    container.bind(useCaseTokens[name] as ServiceIdentifier<unknown>).toResolvedValue(
      (...resolved: unknown[]) =>
        make(Object.fromEntries(needs.map((need, i) => [need, resolved[i]])) as unknown as UseCaseDependencies),
      needs.map((need) => dependencyTokens[need]),
    );
  }
  container.bind(t.useCases).toResolvedValue(
    (...resolved: unknown[]) => Object.fromEntries(names.map((name, i) => [name, resolved[i]])) as UseCases,
    names.map((name) => useCaseTokens[name]),
  );
};
