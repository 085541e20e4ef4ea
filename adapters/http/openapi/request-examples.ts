/**
 * An example request body per operation that takes one, shown on /docs and in the documents (`example` beside the
 * schema). test/openapi/openapi-document.test.ts checks that every request body has one and that its schema accepts it.
 * The public ones, with the path ids below, succeed one after another in the page's order against `npm start`'s demo
 * data (test/openapi/try-out-examples.test.ts): a new category name, one unit of a pet with three, an order changed
 * without completing it so that it can still be cancelled.
 */
export const requestExamples: Readonly<Record<string, unknown>> = {
  createPet: { name: "Rex", categoryId: 1 },
  updatePet: { name: "Rex", categoryId: 1, status: "available" },
  createCategory: { name: "Reptiles", description: "Scales and sunshine" },
  updateCategory: { name: "Dogs", description: "Loyal companions of every size" },
  placeOrder: { petId: 1, quantity: 1, shipDate: "2026-12-01T10:00:00Z" },
  updateOrder: { shipDate: "2026-12-02T10:00:00Z" },
  setInventory: { quantity: 12 },
  createApiKey: { label: "shop front", role: "customer", plan: "pro" },
  updateApiKey: { plan: "business" },
  createWebhook: {
    url: "https://warehouse.example/petstore",
    events: ["order.placed", "order.cancelled"],
    description: "warehouse",
  },
};

/**
 * The path ids the try-out starts from, by operation; 1 where not named. The demo data has no empty category and no
 * order: `deleteCategory` names the category `createCategory`'s example makes (5), the order operations the order
 * `placeOrder`'s makes (1); `deletePet` names the demo's pet without orders that no other example uses (8).
 */
export const pathExamples: Readonly<Record<string, Readonly<Record<string, number | string>>>> = {
  deletePet: { petId: 8 },
  deleteCategory: { categoryId: 5 },
  getConsoleScript: { file: "console.6bzWLTvt0w_QvIC-.js" },
  getConsoleStyle: { file: "console.Xh2kPq9rT4mWv3Ls.css" },
};
