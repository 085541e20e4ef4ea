export interface Order {
  id: number;
  petId: number;
  quantity: number;
  shipDate: Date | undefined;
  complete: boolean;
  /** The API key that placed it; customers see only their own orders. */
  placedBy: number;
  /** Increases with every write to the order. */
  revision: number;
}

export interface NewOrder {
  petId: number;
  quantity: number;
  shipDate?: Date | undefined;
}

export interface OrderChanges {
  complete?: true | undefined;
  shipDate?: Date | undefined;
}
