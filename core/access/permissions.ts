import { DomainError } from "../shared/domain-error.ts";

export const roles = ["customer", "staff", "admin"] as const;
export type Role = (typeof roles)[number];

export type Permission =
  | "catalog:read" // pets and categories
  | "catalog:write"
  | "inventory:read"
  | "inventory:write"
  | "orders:place"
  | "orders:read-own"
  | "orders:cancel-own"
  | "orders:any" // read and cancel every key's orders
  | "orders:complete"
  | "events:read"
  | "api-keys:manage"
  | "webhooks:manage";

const customer: readonly Permission[] = [
  "catalog:read",
  "inventory:read",
  "orders:place",
  "orders:read-own",
  "orders:cancel-own",
];
const staff: readonly Permission[] = [
  ...customer,
  "catalog:write",
  "inventory:write",
  "orders:any",
  "orders:complete",
  "events:read",
];

/** PRODUCT.md §2 as data. */
export const rolePermissions: Readonly<Record<Role, ReadonlySet<Permission>>> = {
  customer: new Set(customer),
  staff: new Set(staff),
  admin: new Set<Permission>([...staff, "api-keys:manage", "webhooks:manage"]),
};

export interface Actor {
  keyId: number;
  role: Role;
}

export const can = (actor: Actor, permission: Permission): boolean => rolePermissions[actor.role].has(permission);

export const authorize = (actor: Actor, permission: Permission): void => {
  if (!can(actor, permission)) {
    throw new DomainError("forbidden", `The ${actor.role} role may not do this`);
  }
};
