/**
 * An example request body per operation that takes one, shown on /docs and in the documents (`example` beside the
 * schema). test/openapi/openapi-document.test.ts checks that every request body has one and that its schema accepts it.
 */
export const requestExamples: Readonly<Record<string, unknown>> = {
  createPet: { name: "Rex", categoryId: 1 },
  updatePet: { name: "Rex", categoryId: 1, status: "available" },
  createCategory: { name: "Dogs", description: "Loyal companions" },
  updateCategory: { name: "Dogs", description: "Loyal companions of every size" },
  placeOrder: { petId: 1, quantity: 2, shipDate: "2026-12-01T10:00:00Z" },
  updateOrder: { complete: true },
  setInventory: { quantity: 12 },
  createApiKey: { label: "shop front", role: "customer", plan: "pro" },
  updateApiKey: { plan: "business" },
  createWebhook: {
    url: "https://warehouse.example/petstore",
    events: ["order.placed", "order.cancelled"],
    description: "warehouse",
  },
};
