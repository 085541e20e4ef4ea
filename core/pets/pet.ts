export const petStatuses = ["available", "pending", "sold"] as const;
export type PetStatus = (typeof petStatuses)[number];

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
  /** Increases with every write to the pet (its stock included): what an ETag is made of. */
  revision: number;
}

export interface NewPet {
  name: string;
  categoryId: number;
  status?: PetStatus | undefined;
}
