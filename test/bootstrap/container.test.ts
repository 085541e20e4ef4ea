import { describe, expect, it } from "vitest";
import { createMemoryStores } from "../../adapters/memory/memory-stores.ts";
import { loadConfig } from "../../bootstrap/config.ts";
import { buildContainer } from "../../bootstrap/container.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import { ports, tokens, useCaseTokens } from "../../bootstrap/tokens.ts";

describe("the container", () => {
  const stores = createMemoryStores();
  const container = buildContainer(loadConfig({ PETSTORE_SEED_DEMO: "false" }), stores, createLogger("silent"));

  it("binds each use case under its own token, once: the HTTP adapter's object holds those very instances", () => {
    const useCases = container.get(tokens.useCases);
    expect(Object.keys(useCases).sort()).toEqual(Object.keys(useCaseTokens).sort());
    for (const [name, token] of Object.entries(useCaseTokens)) {
      const instance: unknown = container.get(token as never);
      expect(instance, name).toBe(useCases[name as keyof typeof useCases]);
      expect(container.get(token as never), name).toBe(instance);
      expect(typeof (instance as { execute?: unknown }).execute, name).toBe("function");
    }
  });

  it("binds each port of the stores, and builds start-up's EnsureAdminKey like any use case", async () => {
    for (const [name, token] of Object.entries(ports))
      expect(container.get(token as never), name).toBe(stores[name as keyof typeof ports]);
    const { generatedSecret } = await container.get(tokens.ensureAdminKey).execute(undefined);
    expect(generatedSecret).toMatch(/\S{32,}/);
    expect(container.get(tokens.ensureAdminKey)).toBe(container.get(tokens.ensureAdminKey));
  });
});
