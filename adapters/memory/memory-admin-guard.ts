import type { AdminGuard } from "../../core/access/admin-guard.port.ts";

export class MemoryAdminGuard implements AdminGuard {
  readonly #admins = new Set<number>();
  readonly #retired = new Set<number>();

  async track(id: number): Promise<void> {
    if (!this.#retired.has(id)) this.#admins.add(id);
  }

  async release(id: number, { retire }: { retire: boolean }): Promise<boolean> {
    if (this.#admins.has(id) && this.#admins.size === 1) return false;
    this.#admins.delete(id);
    if (retire) this.#retired.add(id);
    return true;
  }

  async tracked(): Promise<number[]> {
    return [...this.#admins].sort((a, b) => a - b);
  }
}
