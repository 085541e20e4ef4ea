import { describe, expect, it } from "vitest";
import { firstInvalidUtf8Offset } from "../../adapters/http/json-body.ts";
import { inexactness } from "../../adapters/http/json-numbers.ts";
import { expectError, expectValidationFailed, rawFetch } from "../support/http-assertions.ts";
import { createCategory, stockedPet, usePetstore } from "../support/http-fixtures.ts";

/** PRODUCT.md §6: input is never silently altered. */
describe("input the service cannot take exactly", () => {
  const { t } = usePetstore({
    keys: false,
    given: async () => {
      await createCategory(t, "Dogs");
      await stockedPet(t, 10);
    },
  });

  const post = (path: string, text: string, headers: Record<string, string> = {}) =>
    rawFetch(t, "POST", path, {
      headers: { "x-api-key": t.adminKey, "content-type": "application/json", ...headers },
      body: text,
    });
  const postBytes = (path: string, bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) =>
    rawFetch(t, "POST", path, {
      headers: { "x-api-key": t.adminKey, "content-type": "application/json", ...headers },
      body: bytes,
    });

  describe("integers in JSON bodies", () => {
    it.each([
      "9223372036854775806",
      "9223372036854775807",
      "9223372036854775808",
      "-9223372036854775808",
      "-9223372036854775809",
      "9007199254740992",
      "9007199254740993",
      "-9007199254740992",
      "1e20",
      "9.223372036854775806e18",
      "1e400",
    ])("refuses petId %s with 400 validation_failed naming body.petId, never a rounded id", async (petId) => {
      const res = await post("/store/orders", `{"petId":${petId},"quantity":1}`);
      expectValidationFailed(res, "body.petId");
      expect(res.body.details[0].message).toContain(petId);
      expect(await t.stores.orders.list({ limit: 10 })).toEqual([]);
    });

    it("quotes the id as sent, not as a double would read it", async () => {
      const res = await post("/store/orders", `{"petId":9223372036854775806,"quantity":1}`);
      expect(res.body.details).toEqual([
        { path: "body.petId", message: expect.stringContaining("9223372036854775806") },
      ]);
      expect(JSON.stringify(res.body)).not.toContain("9223372036854776000");
    });

    it("takes the largest exact integers for what they are (here: a pet that does not exist)", async () => {
      for (const petId of ["9007199254740991", "-9007199254740991", "1e15", "100e-2"]) {
        const res = await post("/store/orders", `{"petId":${petId},"quantity":1}`);
        expect(res.status, petId).not.toBe(400);
      }
      expectError(await post("/store/orders", `{"petId":9007199254740991,"quantity":1}`), 422, "unknown_pet");
      expect((await post("/store/orders", `{"petId":1,"quantity":1.0}`)).status).toBe(201);
    });

    it("refuses a number that only rounds to an integer, naming the field", async () => {
      const res = await post("/store/orders", `{"petId":1,"quantity":1.0000000000000001}`);
      expectValidationFailed(res, "body.quantity");
      expect(res.body.details[0].message).toContain("1.0000000000000001");
    });

    it("names nested fields and every inexact number at once", async () => {
      const res = await post(
        "/admin/api-keys",
        `{"label":"x","role":"customer","plan":"free","limits":{"perMinute":18014398509481985,"perDay":-18014398509481985}}`,
      );
      expectValidationFailed(res, "body.limits.perMinute", "body.limits.perDay");
      expect(res.body.details).toHaveLength(2);
    });

    it("refuses an inexact categoryId on PUT /pets/{petId} without changing the pet", async () => {
      const res = await rawFetch(t, "PUT", "/pets/1", {
        headers: { "x-api-key": t.adminKey, "content-type": "application/json" },
        body: `{"name":"Max","categoryId":36028797018963969}`,
      });
      expectValidationFailed(res, "body.categoryId");
      expect((await t.client.get("/pets/1", { key: t.adminKey })).body.name).toBe("Rex");
    });

    it("refuses a body nested too deep for the reviver by its schema, like any other", async () => {
      const depth = 30_000;
      const res = await post("/categories", `{"name":${"[".repeat(depth)}${"]".repeat(depth)}}`);
      expectValidationFailed(res, "body.name");
    });

    it("judges numbers by their source text", () => {
      expect(inexactness(1, "1")).toBeUndefined();
      expect(inexactness(100, "1e2")).toBeUndefined();
      expect(inexactness(100, "100.000e0")).toBeUndefined();
      expect(inexactness(0, "-0.0e-5")).toBeUndefined();
      expect(inexactness(1.5, "1.5")).toBeUndefined(); // fractions are the schema's to refuse
      expect(inexactness(0, "1e-400")).toMatch(/not an integer/);
      expect(inexactness(2 ** 53, "9007199254740992")).toMatch(/cannot be represented exactly/);
      expect(inexactness(2 ** 53 - 1, "9007199254740991")).toBeUndefined();
    });
  });

  describe("int64 ids in paths and queries", () => {
    it.each(["9223372036854775807", "9007199254740993", "-9223372036854775808"])(
      "answers 404 for the valid int64 %s, quoting it as sent",
      async (id) => {
        for (const path of [
          `/pets/${id}`,
          `/categories/${id}`,
          `/store/orders/${id}`,
          `/store/inventory/${id}`,
          `/admin/api-keys/${id}`,
        ]) {
          const res = await t.client.get(path, { key: t.adminKey });
          expectError(res, 404, "not_found");
          expect(res.body.message, path).toContain(id);
        }
      },
    );

    it("still answers 400 for ids outside int64", async () => {
      expectValidationFailed(await t.client.get("/pets/9223372036854775808", { key: t.adminKey }), "path.petId");
      expectValidationFailed(
        await t.client.get("/pets?after=-9223372036854775809", { key: t.adminKey }),
        "query.after",
      );
    });

    it("filters with ids beyond 2^53 exactly: they match nothing and bound nothing", async () => {
      const ids = async (query: string) =>
        ((await t.client.get(`/pets?${query}`, { key: t.adminKey })).body as { id: number }[]).map((p) => p.id);
      expect(await ids("categoryId=9007199254740993")).toEqual([]);
      expect(await ids("ids=9007199254740993,1")).toEqual([1]);
      expect(await ids("after=9007199254740992")).toEqual([]);
      expect(await ids("after=-9223372036854775808")).toEqual([1]);
      const orders = await t.client.get("/store/orders?petId=9223372036854775807", { key: t.adminKey });
      expect(orders.status).toBe(200);
      expect(orders.body).toEqual([]);
    });
  });

  describe("percent-encoding in the request target", () => {
    it.each([
      ["invalid UTF-8", "/pets?name=%FF%FE", "query.name"],
      ["an overlong encoding", "/pets?name=%C0%AF", "query.name"],
      ["a lone continuation byte", "/pets?name=a%80", "query.name"],
      ["an encoded surrogate", "/pets?name=%ED%A0%80", "query.name"],
      ["a malformed escape", "/pets?name=%ZZ", "query.name"],
      ["a truncated escape", "/pets?name=ab%2", "query.name"],
      ["a malformed escape in a later parameter", "/pets?limit=5&after=%G1", "query.after"],
      ["a malformed escape in a name", "/pets?na%ZZme=x", "query.na%ZZme"],
      ["a malformed escape on a route without parameters", "/categories?x=%FF", "query.x"],
    ])("refuses %s with 400 validation_failed naming the parameter", async (_, path, detail) => {
      const res = await t.client.get(path, { key: t.adminKey });
      expectValidationFailed(res, detail);
      expect(res.body.details.find((d: { path: string }) => d.path === detail).message).toMatch(/percent-encoding/);
    });

    it("does not match a pet whose name holds U+FFFD when the query was invalid UTF-8", async () => {
      const category = await createCategory(t, "Odd");
      const created = await t.client.post("/pets", {
        key: t.adminKey,
        body: { name: "\uFFFD\uFFFDrepl", categoryId: category.id },
      });
      expect(created.status).toBe(201);
      expectValidationFailed(await t.client.get("/pets?name=%FF%FE", { key: t.adminKey }), "query.name");
      const exact = await t.client.get("/pets?name=%EF%BF%BD%EF%BF%BD", { key: t.adminKey });
      expect(exact.body.map((p: { id: number }) => p.id)).toEqual([created.body.id]);
    });

    it("takes well-formed escapes, + as a space, and UTF-8 of every length", async () => {
      for (const path of ["/pets?name=%C3%89b", "/pets?name=a+b", "/pets?name=%F0%9D%84%9E", "/pets?name=%25"]) {
        expect((await t.client.get(path, { key: t.adminKey })).status, path).toBe(200);
      }
    });
  });

  describe("text encoding", () => {
    const order = (text: string) => new TextEncoder().encode(text);
    const withBytes = (before: string, bytes: number[], after: string) =>
      new Uint8Array([...order(before), ...bytes, ...order(after)]);

    it.each([
      ["a Latin-1 é", [0xe9]],
      ["a lone continuation byte", [0x80]],
      ["an overlong NUL", [0xc0, 0x80]],
      ["an encoded surrogate", [0xed, 0xa0, 0x80]],
      ["a truncated sequence", [0xe2, 0x82]],
      ["a code point beyond U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ])("refuses %s with 400 invalid_json saying where, and stores nothing", async (_, bytes) => {
      const res = await postBytes("/categories", withBytes('{"name":"Caf', bytes, '"}'));
      expectError(res, 400, "invalid_json");
      expect(res.body.message).toBe("The request body is not valid UTF-8 (first bad byte at offset 12)");
      expect(await t.stores.categories.list({ limit: 10 })).toHaveLength(1);
    });

    it("takes well-formed UTF-8 of every length", async () => {
      const res = await postBytes("/categories", order('{"name":"Café ☕ 𝄞"}'));
      expect(res.status).toBe(201);
      expect(res.body.name).toBe("Café ☕ 𝄞");
    });

    it("refuses a byte order mark with a message that says so", async () => {
      const res = await postBytes("/categories", new Uint8Array([0xef, 0xbb, 0xbf, ...order('{"name":"Birds"}')]));
      expectError(res, 400, "invalid_json");
      expect(res.body.message).toMatch(/remove the byte order mark/);
    });

    it.each(["latin1", "ISO-8859-1", "utf-16", '"utf-16le"', "us-ascii"])(
      "answers 415 to charset=%s",
      async (charset) => {
        const res = await post("/categories", '{"name":"Birds"}', {
          "content-type": `application/json; charset=${charset}`,
        });
        expectError(res, 415, "unsupported_media_type");
        expect(res.body.message).toContain("UTF-8");
      },
    );

    it.each(["utf-8", "UTF-8", '"utf-8"', "utf8"])("takes charset=%s", async (charset) => {
      const res = await post("/categories", '{"name":"Birds"}', {
        "content-type": `application/json;charset=${charset}`,
      });
      expect(res.status).toBe(201);
    });

    it("keeps no refusal under an Idempotency-Key: the corrected retry acts", async () => {
      const headers = { "idempotency-key": "utf8-retry" };
      expectError(
        await postBytes("/categories", withBytes('{"name":"Caf', [0xe9], '"}'), headers),
        400,
        "invalid_json",
      );
      const retry = await postBytes("/categories", order('{"name":"Café"}'), headers);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
    });

    it("answers a body whose stream breaks off (the client went away) as a truncated body, not as our fault", async () => {
      let sent = false;
      const broken = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) return controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
          sent = true;
          controller.enqueue(order('{"name":'));
        },
      });
      const res = await rawFetch(t, "POST", "/categories", {
        headers: { "x-api-key": t.adminKey, "content-type": "application/json" },
        body: broken,
      });
      expectError(res, 400, "invalid_json");
      expect(res.body.message).toMatch(/ended after 8 bytes/);
    });

    it("finds the first ill-formed sequence", () => {
      expect(firstInvalidUtf8Offset(order("plain ☕ 𝄞"))).toBe(-1);
      expect(firstInvalidUtf8Offset(new Uint8Array([0x41, 0xf0, 0x9d, 0x84]))).toBe(1);
      expect(firstInvalidUtf8Offset(new Uint8Array([0xe0, 0x9f, 0x80]))).toBe(0);
      expect(firstInvalidUtf8Offset(new Uint8Array([0x41, 0xff]))).toBe(1);
    });
  });
});
