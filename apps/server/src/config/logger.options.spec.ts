import { createServer } from 'node:http';
import {
  buildLoggerOptions,
  loggedError,
  loggedUrl,
  requestLogMiddleware,
  serviceLogger,
} from './logger.options';
import type { AppConfig } from './app.config';

describe('request log', () => {
  it.each([
    ['/api/chat', '/api/chat'],
    ['/api/diagnosis/sessions?api_key=secret-key-123', '/api/diagnosis/sessions?[REDACTED]'],
    ['/api/diagnosis/s1/trace?runId=r1&token=abc', '/api/diagnosis/s1/trace?[REDACTED]'],
    ['/?', '/?[REDACTED]'],
    ['/api/diagnosis/sessions;api_key=secret-key-123', '/api/diagnosis/sessions;[REDACTED]'],
    ['/api/diagnosis/sessions%3Bapi_key=secret-key-123/x', '/api/diagnosis/sessions;[REDACTED]/x'],
    ['/api;token=abc/diagnosis/sessions?x=1', '/api;[REDACTED]/diagnosis/sessions?[REDACTED]'],
    ['/api/diagnosis/sessions%3Fapi_key=secret-key-123', '/api/diagnosis/sessions?[REDACTED]'],
    ['/api/diagnosis/sessions%3fapi_key=secret-key-123?x=1', '/api/diagnosis/sessions?[REDACTED]'],
  ])('logs %s as %s', (url, logged) => {
    expect(loggedUrl(url)).toBe(logged);
  });

  /** The lines the request log writes for one request the handler answers with `status`. */
  async function requestLogLines(status: number): Promise<string[]> {
    const lines: string[] = [];
    const config = { logLevel: 'info' } as AppConfig;
    const options = buildLoggerOptions(config);
    const root = serviceLogger('info', { write: (line: string) => lines.push(line) });
    const middleware = requestLogMiddleware(config, { ...options, pinoHttp: { logger: root } })!;
    const server = createServer((req, res) =>
      middleware(req as never, res as never, () => {
        res.statusCode = status;
        res.setHeader('set-cookie', 'session=secret-cookie');
        res.setHeader('x-internal', 'secret-header');
        res.end('secret response body');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      await fetch(`http://127.0.0.1:${port}/api/documents/status/INDEXED?apiKey=secret-key-123`, {
        method: 'POST',
        headers: { 'x-api-key': 'secret-api-key' },
        body: JSON.stringify({ query: 'secret question' }),
      }).then((response) => response.text());
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    return lines;
  }

  it('logs each request with its path only, never its query string, body or headers, through the one logger', async () => {
    const lines = await requestLogLines(200);
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(logged.req).toEqual({ id: 1, method: 'POST', url: '/api/documents/status/INDEXED?[REDACTED]' });
    expect(logged.res).toEqual({ statusCode: 200 });
    expect(logged.msg).toBe('request completed');
    // Neither the query, the body, a request header, nor a header or cookie the response set.
    expect(lines[0]).not.toContain('secret');
  });

  it.each([500, 503])(
    'logs a %i with the error type only: no made-up message, no stack trace',
    async (status) => {
      const lines = await requestLogLines(status);
      expect(lines).toHaveLength(1);
      const logged = JSON.parse(lines[0]) as Record<string, unknown>;
      expect(logged.res).toEqual({ statusCode: status });
      expect(logged.err).toEqual({ type: 'Error' });
      expect(logged.msg).toBe('request errored');
      expect(lines[0]).not.toMatch(/stack|secret|failed with status|node_modules|\bat /u);
    },
  );

  it.each([
    [new Error('failed with status code 503'), { type: 'Error' }],
    [
      Object.assign(new Error('write EPIPE /var/run/secret.sock'), { code: 'EPIPE' }),
      { type: 'Error', code: 'EPIPE' },
    ],
    [new TypeError('Cannot read properties of undefined'), { type: 'TypeError' }],
    [
      Object.assign(new Error('x'), { name: 'Error: SELECT * FROM users', code: 'pass=hunter2' }),
      { type: 'Error' },
    ],
    [{ name: 42, code: 17 }, { type: 'Error' }],
  ])('keeps of %p only %p', (error, logged) => {
    expect(loggedError(error)).toEqual(logged);
  });

  it.each([
    ['trace', true],
    ['debug', true],
    ['info', true],
    ['warn', false],
    ['error', false],
    ['fatal', false],
    ['silent', false],
  ])(
    'at level %s, mounts a request log: %s (its lines are info); never nestjs-pino middleware',
    (level, mounted) => {
      const config = { logLevel: level } as AppConfig;
      const options = buildLoggerOptions(config);
      expect(options.forRoutes).toEqual([]);
      expect(requestLogMiddleware(config, options) !== null).toBe(mounted);
    },
  );
});
