const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
const TOKEN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[A-Za-z0-9_]+(?:[.-][A-Za-z0-9_]+)*/g;

/**
 * Tokens for BM25 over Chinese and English text: latin words lower-cased (and the parts of dotted or
 * hyphenated names), CJK runs as overlapping character bigrams (single characters when alone).
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const run = match[0];
    if (CJK.test(run[0])) {
      if (run.length === 1) tokens.push(run);
      for (let i = 0; i + 1 < run.length; i += 1) tokens.push(run.slice(i, i + 2));
    } else {
      const word = run.toLowerCase();
      tokens.push(word);
      if (/[.-]/.test(word)) tokens.push(...word.split(/[.-]/).filter((part) => part.length > 0));
    }
  }
  return tokens;
}
