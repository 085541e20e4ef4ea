import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { standaloneDocuments } from "../../adapters/http/openapi/standalone.ts";
import { defaultBanPolicy } from "../../core/rate-limiting/ban-policy.ts";
import { planLimits } from "../../core/rate-limiting/plans.ts";

describe("numbers the documents state come from their source", () => {
  it("docs/security.md's ban sentence is the default ban policy", () => {
    const text = readFileSync("docs/security.md", "utf8").replaceAll("\n", " ");
    const [, strikes, minutes] =
      /every (\d+)th strike \(`PETSTORE_BAN_STRIKES`\) bans it for (\d+) minutes/.exec(text) ?? [];
    expect({ strikes: Number(strikes), seconds: Number(minutes) * 60 }).toEqual(defaultBanPolicy);
  });

  it("the public OpenAPI document's plan sentence is planLimits", () => {
    const { description = "" } = standaloneDocuments().public.info;
    for (const [plan, { perMinute, perDay }] of Object.entries(planLimits)) {
      expect(description).toContain(`${plan} ${perMinute.toLocaleString("en")}/${perDay.toLocaleString("en")}`);
    }
  });
});
