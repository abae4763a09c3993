import { chunkDocument } from './markdown-chunker';

describe('chunkDocument', () => {
  it('makes one chunk per section with the heading path as breadcrumb', () => {
    const text =
      '# Payment timeout\nintro\n\n## Symptoms\nERR_TIMEOUT in logs\n\n## Steps\n### Check pool\nHikariPool active=max\n';
    expect(chunkDocument('Payment timeout', text)).toEqual([
      { index: 0, breadcrumb: 'Payment timeout', content: 'intro' },
      { index: 1, breadcrumb: 'Payment timeout > Symptoms', content: 'ERR_TIMEOUT in logs' },
      { index: 2, breadcrumb: 'Payment timeout > Steps > Check pool', content: 'HikariPool active=max' },
    ]);
  });

  it('handles plain text without headings', () => {
    expect(chunkDocument('Notes', 'line one\nline two')).toEqual([
      { index: 0, breadcrumb: 'Notes', content: 'line one\nline two' },
    ]);
  });

  it('splits long sections at paragraphs and never exceeds the limit', () => {
    const paragraphs = Array.from({ length: 6 }, (_, i) => `${i}`.repeat(40)).join('\n\n');
    const chunks = chunkDocument('T', paragraphs, 100);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.content.length).toBeLessThanOrEqual(100);
    expect(chunks.map((chunk) => chunk.content).join('\n\n')).toBe(paragraphs);
  });

  it('hard-cuts a single paragraph longer than the limit', () => {
    const chunks = chunkDocument('T', 'x'.repeat(250), 100);
    expect(chunks.map((chunk) => chunk.content.length)).toEqual([100, 100, 50]);
  });
});
