import { startupNotices } from './startup-notices';

describe('startupNotices', () => {
  it.each([
    [0, 1],
    [2, 0],
  ])('with %i API keys gives %i warnings and always the listening URL', (apiKeyCount, warnings) => {
    const notices = startupNotices({
      url: 'http://127.0.0.1:3000',
      apiKeyCount,
      backlog: 511,
      somaxconn: 4096,
    });
    expect(notices.info).toEqual([expect.stringContaining('Listening on http://127.0.0.1:3000')]);
    expect(notices.info[0]).toContain('listen backlog 511');
    expect(notices.warnings).toHaveLength(warnings);
    if (warnings) expect(notices.warnings[0]).toContain('API_KEYS');
  });

  it.each([
    ['above the backlog', 4096, null],
    ['equal to the backlog', 2400, null],
    ['below the backlog', 1024, /capped by the kernel at net.core.somaxconn = 1024/],
    ['unreadable', null, /somaxconn could not be read/],
  ])('with somaxconn %s warns accordingly', (_name, somaxconn, warning) => {
    const notices = startupNotices({
      url: 'http://127.0.0.1:3000',
      apiKeyCount: 1,
      backlog: 2400,
      somaxconn,
    });
    if (warning === null) expect(notices.warnings).toEqual([]);
    else expect(notices.warnings).toEqual([expect.stringMatching(warning)]);
  });
});
