import { ConfigValidationError } from '@app/config';
import { releaseConfig } from './release.config';

describe('releaseConfig', () => {
  const load = (value: string | undefined) => {
    const saved = process.env.RELEASE_ALLOWLIST;
    if (value === undefined) delete process.env.RELEASE_ALLOWLIST;
    else process.env.RELEASE_ALLOWLIST = value;
    try {
      return releaseConfig();
    } finally {
      if (saved === undefined) delete process.env.RELEASE_ALLOWLIST;
      else process.env.RELEASE_ALLOWLIST = saved;
    }
  };

  it.each<[string | undefined, string[], number]>([
    [undefined, [], 0],
    ['corp.example, 10.0.0.0/8', ['corp.example'], 1],
  ])('%j is read', (value, domains, ranges) => {
    const { allowlist } = load(value);
    expect(allowlist.domains).toEqual(domains);
    expect(allowlist.ranges).toHaveLength(ranges);
  });

  it.each([['com'], ['corp.example, https://evil.test'], ['10.0.0.0/40']])(
    '%j stops start-up naming the key',
    (value) => {
      expect(() => load(value)).toThrow(ConfigValidationError);
      expect(() => load(value)).toThrow(/RELEASE_ALLOWLIST/u);
    },
  );
});
