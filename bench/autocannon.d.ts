// Minimal typing of the parts of autocannon the HTTP benchmark uses.
declare module "autocannon" {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p97_5: number;
  }
  export interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    "2xx": number;
    statusCodeStats?: Record<string, { count: number }>;
  }
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (req: Request, context: Record<string, unknown>) => Request;
    onResponse?: (status: number, body: string) => void;
  }
  export interface Options {
    url: string;
    connections?: number;
    /** Requests in flight on each connection. */
    pipelining?: number;
    /** Requests per second over all connections (open loop). */
    overallRate?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    headers?: Record<string, string>;
    requests?: Request[];
    method?: string;
    path?: string;
  }
  interface Instance {
    on(event: "reqError", listener: (error: unknown) => void): this;
  }
  function autocannon(opts: Options): Promise<Result>;
  function autocannon(opts: Options, done: (err: unknown, result: Result) => void): Instance;
  export default autocannon;
}
