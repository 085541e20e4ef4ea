/**
 * Vitest setupFiles entry: every response a test sees through the TestClient is checked against the OpenAPI
 * documents; a response they do not describe fails the test that produced it (reported after the test body).
 */
import { afterEach } from "vitest";
import { openApiDriftCheck, recordDrift, takeRecordedDrift } from "./openapi-drift.ts";
import { observeResponses } from "./test-petstore.ts";

observeResponses((request, response) => recordDrift(openApiDriftCheck().check(request, response)));

afterEach(() => {
  const problems = takeRecordedDrift();
  if (problems.length) {
    throw new Error(
      `OpenAPI drift: the document does not describe ${problems.length} response(s) of this test:\n- ${problems.join("\n- ")}`,
    );
  }
});
