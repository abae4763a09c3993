import { buildLoggerOptions, loggedUrl } from './logger.options';
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

  it('serializes a request without its query string or body', () => {
    const options = buildLoggerOptions({ logLevel: 'info' } as AppConfig);
    const pinoHttp = options.pinoHttp as { serializers: { req: (req: unknown) => unknown } };
    const serialized = pinoHttp.serializers.req({
      id: 7,
      method: 'GET',
      url: '/api/documents/status/INDEXED?apiKey=secret-key-123',
      body: { query: 'secret question' },
    });
    expect(serialized).toEqual({ id: 7, method: 'GET', url: '/api/documents/status/INDEXED?[REDACTED]' });
  });

  it('mounts the request logger on every route unless the level is silent', () => {
    expect(buildLoggerOptions({ logLevel: 'info' } as AppConfig).forRoutes).toBeUndefined();
    expect(buildLoggerOptions({ logLevel: 'silent' } as AppConfig).forRoutes).toEqual([]);
  });
});
