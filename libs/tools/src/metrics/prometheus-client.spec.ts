import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ToolFailure } from '@app/harness';
import type { MetricsDataSourceConfig } from './metrics-tools-config';
import { queryPrometheus } from './prometheus-client';

/**
 * The client's mapping of what a Prometheus-compatible server can answer, against a loopback HTTP
 * server playing the documented response shapes (the real Prometheus runs in the e2e).
 */
describe('queryPrometheus', () => {
  let server: Server;
  let handler: (request: IncomingMessage, response: ServerResponse, body: string) => void;
  let source: MetricsDataSourceConfig;
  const limits = { maxSeries: 2, maxSamples: 5, maxResponseBytes: 2000, queryTimeoutMs: 300 };
  const request = { query: 'up', start: new Date(0), end: new Date(60_000), stepSeconds: 15 };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => handler(req, res, body));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    source = {
      id: 'prom',
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix/`,
      bearerToken: 'tok',
      allowlist: [],
      allowlistText: [],
      redactLabels: new Set(),
    };
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const json = (status: number, value: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  const matrix = (series: number, samples: number) => ({
    status: 'success',
    data: {
      resultType: 'matrix',
      result: Array.from({ length: series }, (_, i) => ({
        metric: { pod: `p${i}` },
        values: Array.from({ length: samples }, (_, t) => [t * 15, '1']),
      })),
    },
  });
  const codeOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'OK';
    } catch (error) {
      return error instanceof ToolFailure ? error.code : `thrown: ${String(error)}`;
    }
  };

  it('posts a range query under the prefix with the server timeout, series limit and token', async () => {
    let seen: { url?: string; auth?: string; body?: string } = {};
    handler = (req, res, body) => {
      seen = { url: req.url, auth: req.headers.authorization, body };
      json(200, matrix(1, 2))(req, res);
    };
    const raw = await queryPrometheus(source, request, limits, new AbortController().signal);
    expect(seen.url).toBe('/prefix/api/v1/query_range');
    expect(seen.auth).toBe('Bearer tok');
    expect(Object.fromEntries(new URLSearchParams(seen.body))).toEqual({
      query: 'up',
      timeout: '300ms',
      limit: '3',
      start: '0',
      end: '60',
      step: '15',
    });
    expect(raw).toMatchObject({
      data_source: 'prom',
      type: 'range',
      step_seconds: 15,
      data: { resultType: 'matrix' },
    });
  });

  it.each<[string, typeof handler, string]>([
    ['too many series', json(200, matrix(3, 1)), 'TOO_MANY_SERIES'],
    ['too many samples', json(200, matrix(2, 3)), 'TOO_MANY_SAMPLES'],
    [
      'a bad_data error',
      json(400, { status: 'error', errorType: 'bad_data', error: 'parse error' }),
      'PROMQL_INVALID',
    ],
    [
      'a server-side timeout',
      json(503, { status: 'error', errorType: 'timeout', error: 'query timed out' }),
      'METRICS_TIMEOUT',
    ],
    [
      'the sample limit',
      json(422, {
        status: 'error',
        errorType: 'execution',
        error: 'query processing would load too many samples into memory',
      }),
      'TOO_MANY_SAMPLES',
    ],
    [
      'an execution error',
      json(422, { status: 'error', errorType: 'execution', error: 'boom' }),
      'METRICS_QUERY_FAILED',
    ],
    [
      'a proxy error page',
      (_q, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>'),
      'METRICS_HTTP_5XX',
    ],
    [
      'a server error page',
      (_q, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<html>internal error</html>'),
      'METRICS_HTTP_5XX',
    ],
    [
      'an error page over the byte cap',
      (_q, res) =>
        res.writeHead(503, { 'content-type': 'text/html' }).end(`<html>${'x'.repeat(5000)}</html>`),
      'METRICS_HTTP_5XX',
    ],
    ['a 5xx with JSON that is not a Prometheus error', json(500, { message: 'oops' }), 'METRICS_HTTP_5XX'],
    [
      'an auth proxy refusing the request',
      (_q, res) => res.writeHead(401, { 'content-type': 'text/html' }).end('<html>log in</html>'),
      'METRICS_HTTP_4XX',
    ],
    ['a 404 with an empty body', (_q, res) => res.writeHead(404).end(), 'METRICS_HTTP_4XX'],
    [
      'an HTML page with 200',
      (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'),
      'METRICS_BAD_RESPONSE',
    ],
    [
      'an unexpected body',
      json(200, { status: 'success', data: { resultType: 'table' } }),
      'METRICS_BAD_RESPONSE',
    ],
    [
      'an oversized body',
      json(200, { status: 'success', pad: 'x'.repeat(5000) }),
      'METRICS_RESULT_TOO_LARGE',
    ],
    ['no answer in time', () => undefined, 'METRICS_TIMEOUT'],
  ])('maps %s to its code', async (_name, respond, code) => {
    handler = respond;
    expect(await codeOf(queryPrometheus(source, request, limits, new AbortController().signal))).toBe(code);
  });

  it('maps a closed port to METRICS_UNREACHABLE', async () => {
    const closed = { ...source, baseUrl: 'http://127.0.0.1:1/' };
    expect(await codeOf(queryPrometheus(closed, request, limits, new AbortController().signal))).toBe(
      'METRICS_UNREACHABLE',
    );
  });

  it("rejects with the run's own reason when the run stops mid-query", async () => {
    handler = () => undefined;
    const run = new AbortController();
    const reason = new Error('run cancelled');
    setTimeout(() => run.abort(reason), 50);
    await expect(
      queryPrometheus(source, request, { ...limits, queryTimeoutMs: 5000 }, run.signal),
    ).rejects.toBe(reason);
  });
});
