export const petStatuses = ["available", "pending", "sold"] as const;
export type PetStatus = (typeof petStatuses)[number];

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
  revision: number;
}

export interface NewPet {
  name: string;
  categoryId: number;
  status?: PetStatus | undefined;
}
