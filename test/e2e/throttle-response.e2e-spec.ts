import { RunningApp, startApp } from '../support/app-under-test';
import { TEST_KEYS } from '../support/test-env';

describe('429 from the rate limit', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ THROTTLE_LIMIT: '1', THROTTLE_TTL_MS: '60000' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers JSON with message and retry_after_s, and a Retry-After header', async () => {
    const get = () =>
      fetch(`${app.baseUrl}/api/documents/status/INDEXED`, { headers: { 'x-api-key': TEST_KEYS.chat } });
    expect((await get()).status).toBe(200);
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await limited.json()) as { message: string; retry_after_s: number };
    expect(body.retry_after_s).toBeGreaterThanOrEqual(1);
    expect(body.retry_after_s).toBeLessThanOrEqual(60);
    expect(body.message).toBe(`Too many requests; try again in ${body.retry_after_s} s.`);
    expect(Number(limited.headers.get('retry-after'))).toBe(body.retry_after_s);
  });
});
