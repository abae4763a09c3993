import { normaliseForRelease } from './release-normalise';
import { browserHost, hasPublicSuffix, SensitiveKind, sensitiveTokens } from './release-tokens';

const tokensOf = (text: string) =>
  sensitiveTokens(normaliseForRelease(text)).map((token) => `${token.kind} ${token.value}`);

describe('sensitiveTokens', () => {
  it.each<[string, string, string[]]>([
    ['plain prose', 'the pool of order-service was exhausted at 04:12', []],
    ['an order id and a trace id', 'order 20261203000123, trace 4bf92f3577b34da6a3ce929d0e0e4736', []],
    ['error codes and hex codes', 'ERR_TIMEOUT, E1045, HTTP 503 and 0x80004005', []],
    ['versions and decimals', 'release 1.2.3 and 2.10.0, p99 1.25 s', []],
    ['decimals with leading zeros', 'from 0.002 s to 0.03 s', []],
    ['a rate', 'retries at 0.5/s', []],
    ['dates and clock times', '2026/12/03 12:30 and 2026-12-03T04:00:00Z', []],
    ['class and file names', 'java.net.SocketTimeoutException in config.yaml', []],
    [
      'internal names (no public suffix)',
      'order-db-1.prod.internal and payment-service.default.svc.cluster.local',
      [],
    ],
    ['an API route', 'GET /api/orders/123 returned 503', []],
    ['a route without its method', 'the longest /api/orders/export request took 30 s, /v1/pay too', []],
    ['a route with an ellipsis', 'POST /api/orders/…/pay slowed down', []],
    ['a route that climbs out is a path', 'read /api/../../etc/passwd', ['FILE_PATH /api/../../etc/passwd']],
    ['a link, in its WHATWG spelling', 'see HTTPS://Evil.Test/a/../x', ['LINK https://evil.test/x']],
    ['a bare host on a public suffix', 'see evil-support.com.', ['HOST evil-support.com']],
    ['a host on a private PSL suffix', 'see x.github.io', ['HOST x.github.io']],
    ['a host on a long ICANN suffix', 'see evil.accountants', ['HOST evil.accountants']],
    ['an IDN suffix', 'see 例子.中国', ['HOST xn--fsqu00a.xn--fiqs8s']],
    ['a host with a path is a link', 'evil.test/reset', ['LINK http://evil.test/reset']],
    ['a protocol-relative link', 'load //cdn.evil.test/x.js', ['LINK http://cdn.evil.test/x.js']],
    ['a markdown link', 'read [the guide](guide.html)', ['LINK guide.html']],
    [
      'userinfo does not hide the host',
      'https://corp.example@evil.test/x',
      ['LINK https://corp.example@evil.test/x'],
    ],
    ['an e-mail address', 'mail Ops@Evil.Test', ['EMAIL ops@evil.test']],
    ['an e-mail address is not a substring of another', 'x@corp.com.au', ['EMAIL x@corp.com.au']],
    ['a phone number, digits only', 'call +1 (202) 555-0147', ['PHONE +12025550147']],
    ['a chat handle', 'ping @ops_helper', ['CHAT_HANDLE @ops_helper']],
    ['a messenger id', '加微信：evil_support', ['CHAT_HANDLE 加微信:evil_support'.replace('加', '')]],
    ['a credential file path', 'cat ~/.aws/credentials', ['FILE_PATH ~/.aws/credentials']],
    ['a dot file', 'the /.env file', ['FILE_PATH /.env']],
    ['an IPv6 address', 'ping 2001:db8:0:0::1', ['IP 2001:db8::1']],
    ['a bracketed IPv6 endpoint', 'open [2001:db8::1]:8080', ['IP 2001:db8::1']],
    ['a Latin host inside Chinese text', '访问evil.com获取帮助', ['HOST evil.com']],
    ['a file name inside Chinese text', '查看application.yml配置', []],
    ['a Windows path', 'C:\\Users\\admin\\.ssh\\id_rsa', ['FILE_PATH C:\\Users\\admin\\.ssh\\id_rsa']],
  ])('%s', (_name, text, expected) => {
    const found = tokensOf(text);
    if (expected.length === 0) expect(found).toEqual([]);
    for (const token of expected) expect(found).toContain(token);
  });
});

describe('hosts as a browser reads them', () => {
  it.each<[string, string | null]>([
    ['evil\u3002com', 'evil.com'],
    ['EVIL.com.', 'evil.com'],
    ['xn--fiqs8s', 'xn--fiqs8s'],
    ['3405803783', '203.0.113.7'],
    ['not a host!', null],
  ])('%j -> %j', (raw, expected) => {
    expect(browserHost(raw)).toBe(expected);
  });

  it.each<[string, boolean]>([
    ['evil.com', true],
    ['evil.co.uk', true],
    ['evil.xyz', true],
    ['evil.accountants', true],
    ['x.github.io', true],
    ['deploy.sh', true],
    ['evil.test', true],
    ['evil.example', true],
    ['order-db-1.prod.internal', false],
    ['a.svc.cluster.local', false],
    ['config.yaml', false],
    ['203.0.113.7', false],
  ])('%s has a public suffix: %s', (host, expected) => {
    expect(hasPublicSuffix(host)).toBe(expected);
  });
});

/** Every spelling of 203.0.113.7 the WHATWG IPv4 parser accepts: 1 to 4 parts, each decimal, hex or octal. */
function ipv4Spellings(octets: number[]): string[] {
  const radix = (value: number) => [
    String(value),
    `0x${value.toString(16)}`,
    `0X${value.toString(16).toUpperCase()}`,
    `0${value.toString(8)}`,
  ];
  const spellings = new Set<string>();
  for (let parts = 1; parts <= 4; parts++) {
    const head = octets.slice(0, parts - 1);
    const tail = octets.slice(parts - 1).reduce((sum, octet) => sum * 256 + octet, 0);
    const combine = (prefix: string[], index: number): void => {
      if (index === head.length) {
        for (const last of radix(tail)) spellings.add([...prefix, last].join('.'));
        return;
      }
      for (const spelled of radix(head[index])) combine([...prefix, spelled], index + 1);
    };
    combine([], 0);
  }
  return [...spellings];
}

describe('class: every numeric IPv4 spelling the WHATWG parser accepts', () => {
  const spellings = ipv4Spellings([203, 0, 113, 7]);

  it('the generator spells the same address every time (checked against the WHATWG parser)', () => {
    expect(spellings.length).toBeGreaterThan(100);
    for (const spelling of spellings) expect(new URL(`http://${spelling}/`).hostname).toBe('203.0.113.7');
  });

  it.each(spellings.map((spelling) => [spelling]))(
    '%s is read as 203.0.113.7 in every link form',
    (spelling) => {
      for (const text of [
        `http://${spelling}/x`,
        `//${spelling}/x`,
        `${spelling}:8443`,
        // A path alone makes an address of four parts, a hex or octal spelling, or one large number.
        ...(spelling.split('.').length === 4 ||
        /0x|^0\d|\.0\d.*\./iu.test(spelling) ||
        !spelling.includes('.')
          ? [`${spelling}/login`]
          : []),
      ]) {
        const kinds = sensitiveTokens(normaliseForRelease(`open ${text} now`));
        expect(
          kinds.some((token) => ['LINK', 'IP'].includes(token.kind) && token.host === '203.0.113.7'),
        ).toBe(true);
      }
    },
  );

  it.each(
    spellings
      .filter(
        (spelling) =>
          spelling.split('.').length === 4 ||
          (spelling.includes('.') && /0x/iu.test(spelling)) ||
          spelling
            .split('.')
            .slice(0, -1)
            .some((part) => /^0\d/u.test(part)),
      )
      .map((s) => [s]),
  )('bare %s is an address', (spelling) => {
    const found = sensitiveTokens(normaliseForRelease(`the dashboard at ${spelling}`));
    expect(found.map((token) => [token.kind as SensitiveKind, token.value])).toContainEqual([
      'IP',
      '203.0.113.7',
    ]);
  });
});
