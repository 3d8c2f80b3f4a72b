const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface Series {
  labels: string;
  count: number;
  sum: number;
  buckets: number[];
}

/** Prometheus text exposition of request counts and latencies, kept in memory (no dependency). */
export class Metrics {
  /** Series by route, method and status: the label text is built once per series, not per request. */
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  private readonly startedAt = Date.now();

  private seriesOf(method: string, route: string, status: number): Series {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.byRoute.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let s = byStatus.get(status);
    if (!s) {
      const labels = `method="${method}",route="${route.replace(/["\\\n]/g, '_')}",status="${status}"`;
      s = { labels, count: 0, sum: 0, buckets: buckets.map(() => 0) };
      byStatus.set(status, s);
    }
    return s;
  }

  private *series(): Generator<Series> {
    for (const byMethod of this.byRoute.values()) for (const byStatus of byMethod.values()) yield* byStatus.values();
  }

  observe(method: string, route: string, status: number, ms: number): void {
    const s = this.seriesOf(method, route, status);
    const seconds = ms / 1000;
    s.count++;
    s.sum += seconds;
    const index = buckets.findIndex((le) => seconds <= le);
    if (index >= 0) s.buckets[index] = (s.buckets[index] ?? 0) + 1;
  }

  render(extra: Record<string, number> = {}): string {
    const lines: string[] = ['# HELP petcare_http_requests_total HTTP requests by method, route and status.', '# TYPE petcare_http_requests_total counter'];
    for (const { labels, count } of this.series()) lines.push(`petcare_http_requests_total{${labels}} ${count}`);
    lines.push('# HELP petcare_http_request_duration_seconds Request latency.', '# TYPE petcare_http_request_duration_seconds histogram');
    for (const s of this.series()) {
      const { labels } = s;
      let cumulative = 0;
      buckets.forEach((le, i) => {
        cumulative += s.buckets[i] as number;
        lines.push(`petcare_http_request_duration_seconds_bucket{${labels},le="${le}"} ${cumulative}`);
      });
      lines.push(`petcare_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
      lines.push(`petcare_http_request_duration_seconds_sum{${labels}} ${s.sum}`);
      lines.push(`petcare_http_request_duration_seconds_count{${labels}} ${s.count}`);
    }
    const memory = process.memoryUsage();
    const gauges: Record<string, number> = {
      petcare_process_uptime_seconds: (Date.now() - this.startedAt) / 1000,
      petcare_process_resident_memory_bytes: memory.rss,
      petcare_process_heap_used_bytes: memory.heapUsed,
      ...extra,
    };
    for (const [name, value] of Object.entries(gauges)) lines.push(`# TYPE ${name} gauge`, `${name} ${value}`);
    return `${lines.join('\n')}\n`;
  }
}
