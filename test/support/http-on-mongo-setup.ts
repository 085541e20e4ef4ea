/**
 * Setup file of the "http-on-mongo" project (vitest.config.ts): its tests need the run's MongoDB server. Without one
 * they are skipped with the reason, except under CI=true, where the global setup has already failed the run.
 */
import { beforeEach } from "vitest";
import { mongoSkipReason } from "./mongo.ts";

const reason = mongoSkipReason();
if (reason && process.env.CI !== "true") {
  beforeEach((context) => {
    context.skip(`MongoDB unavailable: ${reason}`);
  });
}
