import { safeFileName } from './documents.service';

describe('safeFileName', () => {
  it.each([
    ['a plain name', 'runbook.md', 'runbook.md'],
    ['Chinese letters', '支付超时排查.md', '支付超时排查.md'],
    ['Japanese and accents', 'café_障害対応.txt', 'café_障害対応.txt'],
    ['a decomposed accent (normalised to NFC)', 'cafe\u0301.md', 'café.md'],
    ['a POSIX path', '../../etc/passwd.md', 'passwd.md'],
    ['a Windows path', 'C:\\docs\\运维\\手册.md', '手册.md'],
    ['control characters', 'a\u0000b\u001fc\u007f.md', 'a_b_c_.md'],
    ['a bidi override', 'invoice\u202Edm.txt', 'invoice_dm.txt'],
    ['zero-width characters', 'pay\u200Bment\uFEFF.md', 'pay_ment_.md'],
    ['an undecodable byte', 'bad\uFFFD.md', 'bad_.md'],
    ['shell and quote characters', 'a;b|c"d<e>.md', 'a_b_c_d_e_.md'],
    ['an empty name', '', 'document.txt'],
  ])('%s', (_case, input, expected) => {
    expect(safeFileName(input)).toBe(expected);
  });

  it('cuts by code points from the end, never inside a surrogate pair, keeping the extension', () => {
    const name = safeFileName(`${'𠀀'.repeat(300)}.md`);
    expect([...name]).toHaveLength(200);
    expect(name.endsWith('.md')).toBe(true);
    expect(name).not.toMatch(/\p{Cs}/u);
  });
});
