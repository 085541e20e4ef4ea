// The part of autocannon's API the benchmark uses (the package ships no types).
declare module "autocannon" {
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
    requests?: Array<{
      setupRequest?: (request: { headers: Record<string, string> }) => { headers: Record<string, string> };
      onResponse?: (status: number, body: string) => void;
    }>;
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
