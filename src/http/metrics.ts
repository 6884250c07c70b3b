import type { FastifyInstance } from 'fastify';
import client from 'prom-client';

/** Prometheus metrics at GET /metrics: request counts and latencies per route, plus process metrics. */
export function registerMetrics(app: FastifyInstance): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'jobsite_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'jobsite_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', async (req, reply) => {
    // Unknown routes share one label so random paths cannot blow up the series count.
    const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { config: { auth: false }, schema: { hide: true } }, async (_req, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}
