/**
 * A shop's traffic for the benchmark (bench/scenarios.ts): keyed reads over many pets, list pages, orders whose bodies
 * differ from one request to the next (many pets and quantities, some with a ship date) and cancellations of orders
 * the same traffic placed, each sent with one of several customer keys. Generated from a fixed seed, so every server
 * of a run is sent the same texts in the same proportions.
 */

/** Pets in every server before any round; each has stock enough that no round sells it out. */
export const SEEDED_PETS = 1_000;
/** Customer keys the traffic spreads its requests over (each server's rate limiter tracks them all). */
export const CUSTOMER_KEYS = 8;

/** The keys one server accepts, by role. */
export interface Keys {
  customer: string[];
  staff: string;
}

export interface Request {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: string;
  key: string;
}

/** A fresh source of requests for one round: `next()` the request to send, `answered()` told each answer. */
export interface Traffic {
  next(): Request;
  answered(request: Request, status: number, body: string): void;
}

/** mulberry32: a small seeded generator, so the texts are the same in every run and process. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const random = seeded(39);
const petId = () => 1 + Math.floor(random() * SEEDED_PETS);

const distinct = (label: string, count: number, make: () => string): string[] => {
  const texts = new Set<string>();
  for (let tries = 0; texts.size < count; tries++) {
    if (tries > count * 20) throw new Error(`bench/traffic.ts: could not make ${count} distinct ${label}`);
    texts.add(make());
  }
  return [...texts];
};

/** 2,000 distinct order bodies: any pet, 1–5 units, one in four with a ship date in the coming weeks. */
export const ORDER_BODIES = distinct("order bodies", 2_000, () => {
  const order: { petId: number; quantity: number; shipDate?: string } = {
    petId: petId(),
    quantity: 1 + Math.floor(random() * 5),
  };
  if (random() < 0.25)
    order.shipDate = new Date(
      Date.UTC(2027, 0, 1 + Math.floor(random() * 60), 9 + Math.floor(random() * 8)),
    ).toISOString();
  return JSON.stringify(order);
});

/** 2,000 distinct keyed reads of one to three pets. */
export const KEYED_READS = distinct("keyed reads", 2_000, () => {
  const ids = Array.from({ length: 1 + Math.floor(random() * 3) }, petId);
  return `/pets?ids=${ids.join(",")}`;
});

/** A page of 20 pets after any of them. */
export const LIST_PAGES = Array.from({ length: SEEDED_PETS - 20 }, (_, after) => `/pets?limit=20&after=${after}`);

type Kind = "read" | "list" | "order" | "cancel";
/** 70% keyed reads, 10% list pages, 15% orders, 5% cancellations, in a fixed shuffled order of 100. */
const MIX: Kind[] = (() => {
  const kinds: Kind[] = [
    ...Array<Kind>(70).fill("read"),
    ...Array<Kind>(10).fill("list"),
    ...Array<Kind>(15).fill("order"),
    ...Array<Kind>(5).fill("cancel"),
  ];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  return kinds;
})();

/** Cycles through `texts`, each request with the next customer key in turn. */
const cycling =
  (method: Request["method"], texts: readonly string[], as: "path" | "body", path = "") =>
  (keys: Keys): Traffic => {
    let n = 0;
    return {
      next: () => {
        const text = texts[n % texts.length]!;
        const key = keys.customer[n++ % keys.customer.length]!;
        return as === "path" ? { method, path: text, key } : { method, path, body: text, key };
      },
      answered: () => {},
    };
  };

export const keyedReads = cycling("GET", KEYED_READS, "path");
export const variedOrders = cycling("POST", ORDER_BODIES, "body", "/store/orders");

/** The texts a shop's traffic draws from. */
interface ShopTexts {
  reads: readonly string[];
  pages: readonly string[];
  orders: readonly string[];
}

/**
 * The mixed shop: reads, pages, orders and cancellations in MIX's proportions. A cancellation takes the oldest order
 * this traffic placed and sends it with the key that placed it (a customer may cancel only its own); with none
 * placed yet it is a keyed read.
 */
const mixedOver =
  (texts: ShopTexts) =>
  (keys: Keys): Traffic => {
    let n = 0;
    const sent = { read: 0, list: 0, order: 0 };
    const placed: { id: number; key: string }[] = [];
    let first = 0;
    return {
      next: () => {
        const kind = MIX[n % MIX.length]!;
        const key = keys.customer[n++ % keys.customer.length]!;
        if (kind === "cancel" && first < placed.length) {
          const order = placed[first++]!;
          // The cancelled ones are dropped now and then, so the list holds only the orders still open.
          if (first >= 1_024) {
            placed.splice(0, first);
            first = 0;
          }
          return { method: "DELETE", path: `/store/orders/${order.id}`, key: order.key };
        }
        if (kind === "list") return { method: "GET", path: texts.pages[sent.list++ % texts.pages.length]!, key };
        if (kind === "order")
          return {
            method: "POST",
            path: "/store/orders",
            body: texts.orders[sent.order++ % texts.orders.length]!,
            key,
          };
        return { method: "GET", path: texts.reads[sent.read++ % texts.reads.length]!, key };
      },
      answered: (request, status, body) => {
        if (request.method === "POST" && status === 201)
          placed.push({ id: (JSON.parse(body) as { id: number }).id, key: request.key });
      },
    };
  };

export const mixed = mixedOver({ reads: KEYED_READS, pages: LIST_PAGES, orders: ORDER_BODIES });

/**
 * The MongoDB part's shop (bench/mongo-part.ts), as the comparison of issue 47 sent it: 300 pets, keyed reads of one
 * or two of them, orders of every pet and 1–3 units, pages of 20; from a generator of its own, so the texts above stay
 * what they were.
 */
export const MONGO_PETS = 300;
const mongoTexts: ShopTexts = (() => {
  const random = seeded(47);
  const pet = () => 1 + Math.floor(random() * MONGO_PETS);
  const orders = Array.from({ length: MONGO_PETS * 3 }, (_, i) =>
    JSON.stringify({ petId: 1 + (i % MONGO_PETS), quantity: 1 + Math.floor(i / MONGO_PETS) }),
  );
  for (let i = orders.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [orders[i], orders[j]] = [orders[j]!, orders[i]!];
  }
  return {
    reads: distinct("MongoDB keyed reads", 2_000, () =>
      random() < 0.5 ? `/pets?ids=${pet()}` : `/pets?ids=${pet()},${pet()}`,
    ),
    pages: Array.from({ length: MONGO_PETS - 20 }, (_, after) => `/pets?limit=20&after=${after}`),
    orders,
  };
})();
export const mongoKeyedReads = cycling("GET", mongoTexts.reads, "path");
export const mongoVariedOrders = cycling("POST", mongoTexts.orders, "body", "/store/orders");
export const mongoMixed = mixedOver(mongoTexts);

/** The same request every time (the labelled extras): one text, one key. */
export const constant =
  (request: Omit<Request, "key">, as: "customer" | "staff" = "customer") =>
  (keys: Keys): Traffic => {
    const whole = { ...request, key: as === "staff" ? keys.staff : keys.customer[0]! };
    return { next: () => whole, answered: () => {} };
  };
