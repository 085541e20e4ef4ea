import { describe, expect, it } from "vitest";
import { standaloneDocuments } from "../../adapters/http/openapi/standalone.ts";
import { startTestPetstore } from "../support/test-petstore.ts";

type Json = Record<string, any>;

/**
 * What a newcomer does on /docs against `npm start`: Authorize with a key, then "Try it out" on each operation in the
 * page's order, sending the examples as they are filled in. Every call must succeed.
 */
describe("the public document's try-out examples, against the demo data", () => {
  const document = standaloneDocuments().public;
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== "head" && method !== "options")
      .map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Json })),
  );

  it("succeed one after another in the page's order, with the example path ids and bodies", async () => {
    const t = await startTestPetstore({ env: { PETSTORE_SEED_DEMO: "true" } });
    try {
      const answers: string[] = [];
      for (const { path, method, op } of operations) {
        const params = (op.parameters ?? []) as Json[];
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const parameter = params.find((p) => p.in === "path" && p.name === name);
          expect(parameter?.example, `${op.operationId} ${name}`).toBeDefined();
          return String(parameter!.example);
        });
        const body = op.requestBody?.content["application/json"].example;
        if (op.requestBody) expect(body, op.operationId).toBeDefined();
        const answer = await t.client.request(method, url, { key: t.adminKey, body });
        answers.push(
          `${op.operationId} ${answer.status}${answer.status >= 300 ? ` ${JSON.stringify(answer.body)}` : ""}`,
        );
      }
      expect(answers.filter((a) => !/ 2\d\d$/.test(a))).toEqual([]);
      expect(answers.length).toBeGreaterThanOrEqual(18);
    } finally {
      await t.close();
    }
  });

  it("say in the document why an operation has no try-out", () => {
    const hidden = operations.filter(({ op }) => op["x-hideTryItPanel"] === true);
    expect(hidden.map(({ op }) => op.operationId)).toEqual(["listOrders"]);
    for (const { op } of hidden) expect(op.description).toMatch(/\*\*No "Try it out" on \/docs:\*\* \S+/);
    const admin = standaloneDocuments().admin;
    expect(admin.paths["/events"]!.get!.description).toMatch(
      /\*\*No "Try it out" on \/docs:\*\* The answer is a stream/,
    );
  });
});
