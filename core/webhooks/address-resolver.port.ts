/** Every address a host name resolves to (A and AAAA); rejects when it resolves to none in time. */
export interface AddressResolver {
  resolve(host: string): Promise<string[]>;
}
