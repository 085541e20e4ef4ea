import { DomainError, notFound } from "../shared/domain-error.ts";
import type { ApiKey, Plan, RateLimits } from "./api-key.ts";
import type { ApiKeys } from "./api-keys.port.ts";
import { limitFields } from "../rate-limiting/windows.ts";

export const assertLimitsFitPlan = (plan: Plan, limits: RateLimits | undefined): void => {
  if (plan === "enterprise" && !limits) {
    throw new DomainError("validation_failed", `The enterprise plan needs limits: { ${limitFields.join(", ")} }`);
  }
  if (plan !== "enterprise" && limits) {
    throw new DomainError(
      "validation_failed",
      `The ${plan} plan has fixed limits; custom limits need the enterprise plan`,
    );
  }
};

export const existingApiKey = async (apiKeys: ApiKeys, id: number): Promise<ApiKey> => {
  const key = await apiKeys.ofId(id);
  if (!key) throw notFound("API key", id);
  return key;
};
