/** A and AAAA; rejects when none arrive in time. */
export interface AddressResolver {
  resolve(host: string): Promise<string[]>;
}
