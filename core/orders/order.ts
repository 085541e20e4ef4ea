export interface Order {
  id: number;
  petId: number;
  quantity: number;
  shipDate: Date | undefined;
  complete: boolean;
  placedBy: number;
  /** Shown only on request (`expand=placement`), like `placedBy`. */
  placedAt: Date;
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
