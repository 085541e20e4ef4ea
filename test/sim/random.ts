/**
 * The simulation's only source of chance: sfc32 seeded through splitmix32, so a seed (any 32-bit integer) gives the
 * same stream on every machine and Node version. Nothing in the simulated world may draw from Math.random.
 */
export class Random {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const splitmix = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = splitmix();
    this.#b = splitmix();
    this.#c = splitmix();
    this.#d = splitmix();
    for (let i = 0; i < 12; i++) this.#next32();
  }

  #next32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** In [0, 1). */
  next(): number {
    return this.#next32() / 0x1_0000_0000;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [from, to]. */
  between(from: number, to: number): number {
    return from + this.int(to - from + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from nothing");
    return items[this.int(items.length)]!;
  }
}
