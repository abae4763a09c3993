import { LinkifyIt } from 'linkify-it';
import { INERT_MARK, inertText, inertValues, modelQueryScope } from './release-display';

describe('inertText', () => {
  it.each<[string, string]>([
    ['HikariPool-1 - Connection is not available, request timed out after 30000ms', 'unchanged'],
    ['connection refused at 10.0.3.4:3306', 'unchanged'],
    ['order-123 failed with ERR_TIMEOUT', 'unchanged'],
    ['最近 30 分钟出现 84 次连接超时', 'unchanged'],
  ])('harmless evidence stays as it is: %j', (text) => {
    expect(inertText(text)).toBe(text);
  });

  it.each<[string, string]>([
    ['see https://evil.test/reset', `${INERT_MARK}see https[:]∕∕evil[.]test/reset`],
    ['the fix is at evil-support.com', `${INERT_MARK}the fix is at evil-support[.]com`],
    ['mail ops@evil.test', `${INERT_MARK}mail ops[@]evil[.]test`],
    ['go to evil\u202e.com', `${INERT_MARK}go to evil⟦U+202E⟧[.]com`],
    ['<script>alert(1)</script>', `${INERT_MARK}‹script›alert(1)‹/script›`],
    ['run `rm -rf /var/lib/mysql`', `${INERT_MARK}run ˋrm -rf /var/lib/mysqlˋ`],
    // A symbol a reading folds onto the host (∣ reads as l, ¹ as 1) does not hide it from the others.
    ['go to evil.com\u2223/reset-password', `${INERT_MARK}go to evil[.]com\u2223/reset-password`],
    ['the portal is evil-support.com\u00b9', `${INERT_MARK}the portal is evil-support[.]com\u00b9`],
  ])('dangerous evidence is shown inert and marked: %j', (text, expected) => {
    expect(inertText(text)).toBe(expected);
  });

  it.each([
    ['see https://evil.test/reset', 'evil.test'],
    ['the fix is at evil-support.com', 'evil-support.com'],
    ['open evil\u3002com/reset', 'evil\u3002com'],
    ['connect to http://3405803783/', '://'],
  ])('an inert text holds no link a renderer would find: %j', (text, original) => {
    const inert = inertText(text);
    expect(inert).not.toContain(original);
    expect(inert).not.toContain('://');
    expect(new LinkifyIt({ fuzzyLink: true, fuzzyEmail: true }).match(inert)).toBeNull();
  });

  it('is applied to every string of a value, keys included', () => {
    expect(inertValues({ rows: [['see evil.com', 3]], 'evil.com': true })).toEqual({
      rows: [[`${INERT_MARK}see evil[.]com`, 3]],
      [`${INERT_MARK}evil[.]com`]: true,
    });
  });

  it('labels the scope as the model’s query', () => {
    expect(modelQueryScope("SELECT 'x.evil.com' AS h FROM biz_order params=[]")).toMatch(
      /^模型的查询 \/ the model’s query: ⚠ \[inert\] /u,
    );
    expect(modelQueryScope('')).toBe('');
  });
});
