import { allowlistPermits, EMPTY_ALLOWLIST, parseReleaseAllowlist } from './release-allowlist';
import { normaliseForRelease } from './release-normalise';
import { sensitiveTokens } from './release-tokens';

describe('parseReleaseAllowlist', () => {
  it.each<[string, string[], number, string[]]>([
    ['', [], 0, []],
    ['corp.example, wiki.corp.example', ['corp.example', 'wiki.corp.example'], 0, []],
    ['CORP.Example.', ['corp.example'], 0, []],
    ['例子.中国', ['xn--fsqu00a.xn--fiqs8s'], 0, []],
    ['10.0.0.0/8 192.168.1.10 ::1', [], 3, []],
    ['com', [], 0, ['com']],
    ['co.uk', [], 0, ['co.uk']],
    ['github.io', [], 0, ['github.io']],
    ['localhost', [], 0, ['localhost']],
    ['https://corp.example', [], 0, ['https://corp.example']],
    ['*.corp.example', [], 0, ['*.corp.example']],
    ['0x7f.1', [], 0, ['0x7f.1']],
    ['10.0.0.0/33', [], 0, ['10.0.0.0/33']],
  ])('%j', (raw, domains, ranges, invalid) => {
    const parsed = parseReleaseAllowlist(raw);
    expect(parsed.allowlist.domains).toEqual(domains);
    expect(parsed.allowlist.ranges).toHaveLength(ranges);
    expect(parsed.invalid).toEqual(invalid);
  });
});

describe('allowlistPermits', () => {
  const { allowlist } = parseReleaseAllowlist('corp.example 198.51.100.0/24');
  const permitted = (text: string, list = allowlist) =>
    sensitiveTokens(normaliseForRelease(text)).every((token) => allowlistPermits(list, token));

  it.each<[string, boolean]>([
    ['wiki.corp.example', true],
    ['corp.example', true],
    ['https://wiki.corp.example/runbooks/pool', true],
    ['oncall@corp.example', true],
    ['evilcorp.example', false],
    ['corp.example.evil.test', false],
    ['https://corp.example@evil.test/x', false],
    ['javascript://corp.example/%0aalert(1)', false],
    ['198.51.100.23', true],
    ['http://198.51.100.23/status', true],
    ['198.51.101.23', false],
    ['call +1 202-555-0147', false],
    ['ping @ops_helper', false],
    ['cat ~/.aws/credentials', false],
  ])('%j -> %s', (text, expected) => {
    expect(permitted(text)).toBe(expected);
  });

  it.each<[string, boolean]>([
    ['10.0.3.14', true],
    ['10.0.3.4:3306', true],
    ['127.0.0.1:6379', true],
    ['192.168.1.20', true],
    ['10.0.3.4/admin', false],
    ['0x7f.1', false],
    ['203.0.113.7', false],
    ['169.254.169.254', false],
    ['fd00::5', true],
    ['::1', true],
    ['2001:db8::1', false],
  ])('built in, a plainly written private or loopback address: %j -> %s', (text, expected) => {
    expect(permitted(text, EMPTY_ALLOWLIST)).toBe(expected);
  });
});
