import {
  commandReading,
  displayedReading,
  hiddenControlsIn,
  normaliseForRelease,
  revealHiddenControls,
} from './release-normalise';

describe('normaliseForRelease (the canonical reading)', () => {
  it.each<[string, string, string]>([
    ['plain text stays', 'order-123 failed with ERR_TIMEOUT', 'order-123 failed with ERR_TIMEOUT'],
    ['entities, also doubly encoded', 'https&#58;//evil.test &amp;#47;x', 'https://evil.test /x'],
    ['fullwidth letters and dots (NFKC)', 'ｅｖｉｌ．ｃｏｍ', 'evil.com'],
    ['zero-width characters removed', 'ev\u200bil.c\u200dom', 'evil.com'],
    ['bidi overrides removed', 'evil\u202e.com', 'evil.com'],
    ['tag characters removed', 'evil\u{e0041}.com', 'evil.com'],
    ['ideographic full stop between labels', 'evil\u3002com', 'evil.com'],
    ['halfwidth ideographic full stop', 'evil\uff61com', 'evil.com'],
    ['a Chinese sentence end stays', '出现 84 次超时\u3002然后重启', '出现 84 次超时\u3002然后重启'],
    ['Cyrillic letters read as the Latin they imitate', 'evil.c\u043em', 'evil.com'],
    ['a whole-script Cyrillic look-alike', '\u0440\u0430\u0443\u0440\u0430l', 'paypal'],
    ['Greek omicron', 'g\u03bfogle', 'google'],
    ['Chinese text stays', '连接池耗尽', '连接池耗尽'],
    ['defanged scheme and dots', 'hxxps://evil[.]test', 'https://evil.test'],
    ['defanged at', 'ops (at) evil (dot) test', 'ops@evil.test'],
    ['spaced scheme', 'h t t p s : / / evil.test', 'https://evil.test'],
    // Not read as dots: `凌晨2点AWS告警` is a time, `the dot net runtime` is prose.
    ['a clock time in Chinese stays', '凌晨2点AWS告警', '凌晨2点AWS告警'],
    ['a dot spelled in prose stays', 'the dot net runtime', 'the dot net runtime'],
  ])('%s', (_name, input, expected) => {
    expect(normaliseForRelease(input)).toBe(expected);
  });
});

describe('displayedReading (what a browser takes a host as)', () => {
  it.each<[string, string, string]>([
    ['fullwidth letters fold (NFKC), as IDNA maps them', 'ｅｖｉｌ．ｃｏｍ', 'evil.com'],
    ['an ideographic full stop between labels is a dot', 'evil\u3002com', 'evil.com'],
    ['a hidden character is dropped, as UTS #46 does', 'ev\u200bil.com', 'evil.com'],
    ['a Cyrillic look-alike stays what it is', 'c\u043erp.com', 'c\u043erp.com'],
    ['an entity stays text', '&#104;ttps://corp.com', '&#104;ttps://corp.com'],
    ['a defanged link stays defanged', 'hxxps://corp[.]com', 'hxxps://corp[.]com'],
  ])('%s', (_name, input, expected) => {
    expect(displayedReading(input)).toBe(expected);
  });
});

describe('hiddenControlsIn', () => {
  it.each<[string, boolean]>([
    ['plain text', false],
    ['中文与 English', false],
    ['a\u200bb', true],
    ['a\u200cb', true],
    ['a\u200db', true],
    ['a\u2060b', true],
    ['a\ufeffb', true],
    ['a\u00adb', true],
    ['a\u202ab', true],
    ['a\u202eb', true],
    ['a\u2066b', true],
    ['a\u2069b', true],
    ['a\u200fb', true],
    ['a\u061cb', true],
    ['a\ufe0fb', true],
    ['a\u{e0061}b', true],
    ['a&#8238;b', true],
    ['a&#x200B;b', true],
    ['a&#000000008238;b (leading zeros, as a browser reads them)', true],
    // Unicode's format and default-ignorable characters, not a hand-made list: these were missing from one.
    ['a\u{1bca0}b (shorthand format letter overlap)', true],
    ['a\u{1d173}b (musical symbol begin beam)', true],
    ['a\ufff9b (interlinear annotation anchor)', true],
    ['a\u180eb (Mongolian vowel separator)', true],
    ['a\u{e0100}b (variation selector 17)', true],
    ['a\u{e0fff}b (an unassigned default-ignorable)', true],
    ['evil.c\u0000om (NUL)', true],
    ['a\u001b[2Jb (a terminal escape)', true],
    ['a\u2800b (blank braille pattern)', true],
    ['a\ue000b (private use)', true],
    ['a\u{50000}b (unassigned)', true],
    ['a\ud800b (a lone surrogate)', true],
    ['tab\tand\r\nline ends', false],
    ['中文。English，数字１２３', false],
  ])('%j -> %s', (text, expected) => {
    expect(hiddenControlsIn(text)).toBe(expected);
  });

  it('every bidi control and zero-width character is found', () => {
    const controls = [0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2060, 0xfeff];
    for (let code = 0x202a; code <= 0x202e; code++) controls.push(code);
    for (let code = 0x2066; code <= 0x2069; code++) controls.push(code);
    for (const code of controls) expect(hiddenControlsIn(`a${String.fromCodePoint(code)}b`)).toBe(true);
  });
});

describe('revealHiddenControls', () => {
  it.each<[string, string]>([
    ['plain', 'plain'],
    ['evil\u202e.com', 'evil⟦U+202E⟧.com'],
    ['a\u200bb', 'a⟦U+200B⟧b'],
  ])('%j -> %j', (text, expected) => {
    expect(revealHiddenControls(text)).toBe(expected);
  });
});

describe('commandReading', () => {
  it.each<[string, string, string]>([
    ['quotes inside a word', "r''m -rf /", 'rm -rf /'],
    ['an escape inside a word', 'r\\m -rf /', 'rm -rf /'],
    ['$IFS as a space', 'rm${IFS}-rf${IFS}/', 'rm -rf /'],
    ['a brace list', '{rm,-rf,/}', 'rm -rf /'],
    ['a line continuation', 'rm \\\n-rf /', 'rm -rf /'],
    ['a SQL comment', 'DELETE/**/FROM biz_order', 'DELETE FROM biz_order'],
    // MySQL and MariaDB run what a versioned comment holds: its contents are read, never deleted.
    ['a versioned comment', '/*!50000 DROP TABLE biz_order */', 'DROP TABLE biz_order'],
    ["MariaDB's versioned comment", '/*M!100100 TRUNCATE TABLE payment */', 'TRUNCATE TABLE payment'],
    [
      'a plain comment holding a statement',
      'SELECT 1 /* ; DELETE FROM biz_order */',
      'DELETE FROM biz_order',
    ],
    ['a quoted keyword', '"DELETE" FROM biz_order', 'DELETE FROM biz_order'],
    ['base64 decoded and appended', 'echo cm0gLXJmIC8= | base64 -d', 'rm -rf /'],
    ['hex decoded and appended', 'PREPARE s FROM 0x44524f50205441424c452078', 'DROP TABLE x'],
  ])('%s', (_name, input, expected) => {
    expect(commandReading(input)).toContain(expected);
  });
});
