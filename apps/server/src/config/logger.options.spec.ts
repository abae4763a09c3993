import { createServer } from 'node:http';
import { buildLoggerOptions, loggedUrl, requestLogMiddleware, serviceLogger } from './logger.options';
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
  ])('logs %s as %s', (url, logged) => {
    expect(loggedUrl(url)).toBe(logged);
  });

  it('logs each request with its path only, never its query string or body, through the one logger', async () => {
    const lines: string[] = [];
    const config = { logLevel: 'info' } as AppConfig;
    const options = buildLoggerOptions(config);
    const root = serviceLogger('info', { write: (line: string) => lines.push(line) });
    const middleware = requestLogMiddleware(config, { ...options, pinoHttp: { logger: root } })!;
    const server = createServer((req, res) =>
      middleware(req as never, res as never, () => {
        res.setHeader('set-cookie', 'session=secret-cookie');
        res.end('ok');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      await fetch(`http://127.0.0.1:${port}/api/documents/status/INDEXED?apiKey=secret-key-123`, {
        method: 'POST',
        body: JSON.stringify({ query: 'secret question' }),
      }).then((response) => response.text());
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]) as { req: unknown; res: { statusCode: number }; msg: string };
    expect(logged.req).toEqual({ id: 1, method: 'POST', url: '/api/documents/status/INDEXED?[REDACTED]' });
    expect(logged.res.statusCode).toBe(200);
    // Neither the query, the body, nor a cookie the response set.
    expect(lines[0]).not.toContain('secret');
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
