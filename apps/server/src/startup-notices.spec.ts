import { startupNotices } from './startup-notices';

describe('startupNotices', () => {
  it.each([
    [0, 1],
    [2, 0],
  ])('with %i API keys gives %i warnings and always the listening URL', (apiKeyCount, warnings) => {
    const notices = startupNotices({ url: 'http://127.0.0.1:3000', apiKeyCount });
    expect(notices.info).toEqual([expect.stringContaining('Listening on http://127.0.0.1:3000')]);
    expect(notices.warnings).toHaveLength(warnings);
    if (warnings) expect(notices.warnings[0]).toContain('API_KEYS');
  });
});
