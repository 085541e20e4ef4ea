import type { H3 } from "h3";
import { loadConfig } from "../../bootstrap/config.ts";
import { createLogger } from "../../bootstrap/logger.ts";
import type { ContainerOverrides } from "../../bootstrap/container.ts";
import { composePetstore, type Petstore } from "../../bootstrap/petstore.ts";
import type { Role } from "../../core/access/permissions.ts";
import type { Plan, RateLimits } from "../../core/access/api-key.ts";
import type { Stores } from "../../core/stores.ts";
import { ManualClock } from "./manual-clock.ts";

export const ADMIN_KEY = "test-admin-key-0123456789abcdefghijklmnopqrstuvwxyz";

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string | undefined;
  body?: unknown;
  /** Sent as is instead of JSON.stringify(body). */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

/** Every response a test sees passes through here; a checker (the OpenAPI drift check) may be plugged in. */
export type ResponseObserver = (request: { method: string; path: string }, response: TestResponse) => void;
const observers: ResponseObserver[] = [];
export const observeResponses = (observer: ResponseObserver): void => {
  observers.push(observer);
};
/** For helpers that call app.fetch themselves (raw bodies, streams): their responses go to the observers too. */
export const notifyResponseObservers: ResponseObserver = (request, response) => {
  for (const observe of observers) observe(request, response);
};

/** Talks to the app through app.fetch: no socket, the whole pipeline. */
export class TestClient {
  readonly #app: H3;
  readonly #base: string;
  constructor(app: H3, base = "http://petstore.test") {
    this.#app = app;
    this.#base = base;
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers = new Headers(options.headers);
    if (options.key !== undefined) headers.set("x-api-key", options.key);
    let body: BodyInit | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    const response = await this.#app.fetch(new Request(new URL(path, this.#base), { method, headers, body }));
    const text = await response.text();
    const result: TestResponse<T> = {
      status: response.status,
      headers: response.headers,
      body: text && response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : (text as T),
    };
    notifyResponseObservers({ method, path }, result);
    return result;
  }

  get = <T = any>(path: string, o?: RequestOptions) => this.request<T>("GET", path, o);
  post = <T = any>(path: string, o?: RequestOptions) => this.request<T>("POST", path, o);
  put = <T = any>(path: string, o?: RequestOptions) => this.request<T>("PUT", path, o);
  patch = <T = any>(path: string, o?: RequestOptions) => this.request<T>("PATCH", path, o);
  delete = <T = any>(path: string, o?: RequestOptions) => this.request<T>("DELETE", path, o);
}

export interface TestPetstore {
  petstore: Petstore;
  client: TestClient;
  clock: ManualClock;
  stores: Stores;
  adminKey: string;
  /** A new API key made through the admin API. */
  newKey(role: Role, plan?: Plan, limits?: RateLimits): Promise<string>;
  close(): Promise<void>;
}

/**
 * Stores for a petstore whose test gave none: in-memory, or, with PETSTORE_TEST_STORE=mongo (the "http-on-mongo"
 * vitest project), the MongoDB adapters on a database of their own, dropped when the petstore closes.
 */
const defaultTestStores = async (): Promise<Stores | undefined> => {
  if (process.env.PETSTORE_TEST_STORE !== "mongo") return undefined;
  // Loaded only here: outside that project nothing needs the driver or vitest's inject.
  const { freshMongoDatabase, mongoUrl } = await import("./mongo.ts");
  const { connectMongoStores } = await import("../../adapters/mongo/mongo-stores.ts");
  const database = await freshMongoDatabase("http");
  try {
    const stores = await connectMongoStores({ url: mongoUrl(), dbName: database.db.databaseName });
    return {
      ...stores,
      async close() {
        try {
          await stores.close();
        } finally {
          await database.close();
        }
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
};

/**
 * A fresh petstore on in-memory stores (MongoDB ones under PETSTORE_TEST_STORE=mongo), or on the given ones, with a
 * manual clock and a known admin key.
 */
export const startTestPetstore = async (
  options: { env?: Record<string, string>; clock?: ManualClock; stores?: Stores; overrides?: ContainerOverrides } = {},
): Promise<TestPetstore> => {
  const clock = options.clock ?? new ManualClock();
  const config = loadConfig({ PETSTORE_ADMIN_KEY: ADMIN_KEY, PETSTORE_SEED_DEMO: "false", ...options.env });
  const stores = options.stores ?? (await defaultTestStores());
  const petstore = await composePetstore(config, createLogger("silent"), {
    ...options.overrides,
    clock,
    ...(stores ? { stores } : {}),
  }).catch(async (error: unknown) => {
    if (!options.stores) await stores?.close();
    throw error;
  });
  const client = new TestClient(petstore.app);
  return {
    petstore,
    client,
    clock,
    stores: petstore.stores,
    adminKey: ADMIN_KEY,
    async newKey(role, plan = "business", limits) {
      const res = await client.post("/admin/api-keys", {
        key: ADMIN_KEY,
        body: { label: `${role} key`, role, plan, limits },
      });
      if (res.status !== 201) throw new Error(`Could not create a key: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.key as string;
    },
    close: () => petstore.close(),
  };
};
