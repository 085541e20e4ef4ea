// The part of autocannon's API the benchmark uses (the package ships no types).
declare module "autocannon" {
  interface RequestOptions {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    sampleInt?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Total requests to send instead of a duration. */
    amount?: number;
    requests?: Array<
      RequestOptions & {
        /** Makes the request to send from autocannon's defaults, which it must keep (host and port among them). */
        setupRequest?(
          request: RequestOptions & { headers: Record<string, string> },
          context: Record<string, unknown>,
        ): RequestOptions;
        onResponse?(status: number, body: string, context: Record<string, unknown>): void;
      }
    >;
  }
  interface Histogram {
    p50: number;
    p99: number;
    average: number;
  }
  interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    duration: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
