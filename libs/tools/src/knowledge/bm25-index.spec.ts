import MiniSearch from 'minisearch';
import { Bm25Index, Bm25SearchStats } from './bm25-index';
import { tokenize } from './text-tokenizer';
import GOLDEN from './bm25-index.golden.json';

const BOOSTS = [2, 1.5, 1];

/** Deterministic pseudo-random numbers (mulberry32), so a failing corpus can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHINESE = [
  '支付',
  '超时',
  '连接池',
  '耗尽',
  '数据库',
  '死锁',
  '证书',
  '过期',
  '磁盘',
  '内存',
  '回滚',
  '发布',
];

/** Words drawn with a Zipf-like skew: a few common ones, a long tail of rare ones, some Chinese. */
function vocabulary(size: number): string[] {
  return Array.from({ length: size }, (_, i) =>
    i % 7 === 3 ? `${CHINESE[i % CHINESE.length]}${i}` : `w${i}${i % 5 === 0 ? '-svc' : ''}`,
  );
}

function text(next: () => number, words: string[], length: number): string {
  return Array.from({ length }, () => words[Math.floor(words.length * next() ** 2.5)]).join(' ');
}

interface Doc {
  key: string;
  texts: [string, string, string];
}

function corpus(seed: number, docs: number, vocabularySize: number): { docs: Doc[]; queries: string[] } {
  const next = random(seed);
  const words = vocabulary(vocabularySize);
  const list = Array.from({ length: docs }, (_, i): Doc => ({
    key: `d${i}`,
    texts: [
      text(next, words, 1 + Math.floor(next() * 4)),
      text(next, words, Math.floor(next() * 6)),
      text(next, words, 5 + Math.floor(next() * 120)),
    ],
  }));
  const queries = Array.from({ length: 25 }, () => text(next, words, 1 + Math.floor(next() * 7)));
  return { docs: list, queries };
}

/** BM25 straight from the definition, scoring every entry: the reference the pruned search must equal. */
const tokenizedCorpora = new WeakMap<Doc[], string[][][]>();

function bruteForce(docs: Doc[], query: string, limit: number): { key: string; score: number }[] {
  let tokenized = tokenizedCorpora.get(docs);
  if (!tokenized) {
    tokenized = docs.map((doc) => doc.texts.map((field) => tokenize(field)));
    tokenizedCorpora.set(docs, tokenized);
  }
  const averages = BOOSTS.map(
    (_, field) => tokenized!.reduce((sum, fields) => sum + new Set(fields[field]).size, 0) / docs.length,
  );
  const weights = new Map<string, number>();
  for (const token of tokenize(query)) weights.set(token, (weights.get(token) ?? 0) + 1);
  const documentFrequency = new Map(
    [...weights.keys()].map((term) => [
      term,
      BOOSTS.map((_, field) => tokenized!.filter((fields) => fields[field].includes(term)).length),
    ]),
  );
  const scored = tokenized.map((fields, position) => {
    let raw = 0;
    let matched = 0;
    for (const [term, weight] of weights) {
      let contribution = 0;
      for (let field = 0; field < BOOSTS.length; field += 1) {
        const tf = fields[field].filter((token) => token === term).length;
        if (tf === 0) continue;
        const df = documentFrequency.get(term)![field];
        const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
        const relative = new Set(fields[field]).size / averages[field];
        contribution += BOOSTS[field] * idf * (0.5 + (tf * 2.2) / (tf + 1.2 * (1 - 0.7 + 0.7 * relative)));
      }
      if (contribution > 0) matched += 1;
      raw += weight * contribution;
    }
    return { key: docs[position].key, score: raw * matched, position };
  });
  return scored
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.position - b.position)
    .slice(0, limit)
    .map(({ key, score }) => ({ key, score }));
}

function build(docs: Doc[]): Bm25Index {
  const index = new Bm25Index({ boosts: BOOSTS, tokenize });
  for (const doc of docs) index.add(doc.key, doc.texts);
  return index;
}

/** Same ranking: equal scores (to rounding) in the same order; within a run of tied scores any order. */
function expectSameRanking(
  actual: { key: string; score: number }[],
  expected: { key: string; score: number }[],
): void {
  expect(actual.map((hit) => hit.score)).toHaveLength(expected.length);
  actual.forEach((hit, i) => expect(hit.score).toBeCloseTo(expected[i].score, 9));
  const groups = (hits: { key: string; score: number }[]) => {
    const byScore = new Map<string, string[]>();
    for (const hit of hits) {
      const score = hit.score.toPrecision(9);
      byScore.set(score, [...(byScore.get(score) ?? []), hit.key].sort());
    }
    const last = hits.at(-1)?.score.toPrecision(9);
    // The last tie group may be cut at a different member; only its size must agree.
    return [...byScore].map(([score, keys]) => (score === last ? keys.length : keys));
  };
  expect(groups(actual)).toEqual(groups(expected));
}

describe('Bm25Index', () => {
  it.each([
    // seed, entries, vocabulary, limit
    [1, 40, 30, 5],
    [2, 200, 80, 5],
    [3, 500, 400, 15],
    [4, 300, 20, 3],
    [5, 120, 1000, 1],
    [6, 800, 200, 15],
  ])('seed %i: %i entries over %i words, top %i equals brute-force BM25', (seed, size, words, limit) => {
    const { docs, queries } = corpus(seed, size, words);
    const index = build(docs);
    for (const query of queries) {
      expectSameRanking(index.search(query, limit), bruteForce(docs, query, limit));
    }
  });

  it.each([
    [11, 300, 60, 5],
    [12, 600, 300, 15],
  ])(
    'seed %i: after removals and re-adds it equals brute force over what is left',
    (seed, size, words, limit) => {
      const { docs, queries } = corpus(seed, size, words);
      const index = build(docs);
      const removed = docs.filter((_, i) => i % 3 === 1);
      for (const doc of removed) expect(index.remove(doc.key)).toBe(true);
      const kept = docs.filter((_, i) => i % 3 !== 1);
      for (const query of queries) {
        expectSameRanking(index.search(query, limit), bruteForce(kept, query, limit));
      }
      const readded = removed.slice(0, 20);
      for (const doc of readded) index.add(doc.key, doc.texts);
      for (const query of queries) {
        expectSameRanking(index.search(query, limit), bruteForce([...kept, ...readded], query, limit));
      }
      expect(index.size).toBe(kept.length + readded.length);
    },
  );

  it.each([
    [21, 300, 50, 5],
    [22, 700, 500, 15],
  ])('seed %i: ranks like MiniSearch did (title x2, breadcrumb x1.5, OR)', (seed, size, words, limit) => {
    const { docs, queries } = corpus(seed, size, words);
    const mini = new MiniSearch<{ id: string; title: string; breadcrumb: string; content: string }>({
      fields: ['title', 'breadcrumb', 'content'],
      tokenize,
      processTerm: (term) => term,
      searchOptions: { boost: { title: 2, breadcrumb: 1.5 }, combineWith: 'OR' },
    });
    mini.addAll(
      docs.map(({ key, texts }) => ({ id: key, title: texts[0], breadcrumb: texts[1], content: texts[2] })),
    );
    const index = build(docs);
    for (const query of queries) {
      const expected = mini
        .search(query)
        .slice(0, limit)
        .map((result) => ({ key: String(result.id), score: result.score }));
      expectSameRanking(index.search(query, limit), expected);
    }
  });

  // Rankings the previous index (number[] postings, entry texts kept in the heap) produced on these
  // corpora, recorded before it was replaced: the compact index must give the same keys and scores.
  it.each(GOLDEN.map((entry) => [entry.seed, entry.entries, entry.words, entry.limit, entry] as const))(
    'seed %i: %i entries over %i words, top %i equals the previous index',
    (seed, size, words, limit, { rankings }) => {
      const { docs, queries } = corpus(seed, size, words);
      expect(rankings.map((ranking) => ranking.query)).toEqual(queries);
      const index = build(docs);
      for (const { query, hits } of rankings) {
        const expected = hits.map(([key, score]) => ({ key: String(key), score: Number(score) }));
        expectSameRanking(index.search(query, limit), expected);
      }
    },
  );

  it("removes a document's entries together and forgets terms no entry has any more", () => {
    const { docs, queries } = corpus(41, 300, 100);
    const index = build(docs);
    const unique = { key: 'only', texts: ['zzunique', '', 'zzunique words'] as [string, string, string] };
    index.add(unique.key, unique.texts);
    const removed = docs.filter((_, i) => i % 4 === 0).map((doc) => doc.key);
    expect(index.removeAll([...removed, 'unknown', 'only'])).toBe(removed.length + 1);
    expect(index.search('zzunique', 5)).toEqual([]);
    expect(index.footprint().terms).toBeLessThan(
      new Set(docs.flatMap((doc) => doc.texts.flatMap((field) => tokenize(field)))).size + 1,
    );
    const kept = docs.filter((_, i) => i % 4 !== 0);
    for (const query of queries) expectSameRanking(index.search(query, 10), bruteForce(kept, query, 10));
    const { postings } = index.footprint();
    expect(postings).toBe(
      kept.reduce((sum, doc) => sum + new Set(doc.texts.flatMap((field) => tokenize(field))).size, 0),
    );
  });

  it.each([
    ['below the cap', 500, 500],
    ['at the cap', 1023, 1023],
    ['above the cap (saturates)', 1500, 1023],
  ])('packs a term frequency %s', (_name, repeats, counted) => {
    const index = new Bm25Index({ boosts: BOOSTS, tokenize });
    index.add('many', ['', '', Array.from({ length: repeats }, () => 'pool').join(' ')]);
    index.add('few', ['', '', 'pool x']);
    const reference = [
      { key: 'many', texts: ['', '', Array.from({ length: counted }, () => 'pool').join(' ')] },
      { key: 'few', texts: ['', '', 'pool x'] },
    ] as Doc[];
    expectSameRanking(index.search('pool', 2), bruteForce(reference, 'pool', 2));
  });

  it('scores only a fraction of the matching entries when a rare term decides the top k', () => {
    const docs: Doc[] = Array.from({ length: 2000 }, (_, i) => ({
      key: `d${i}`,
      texts: ['runbook', 'ops', `timeout service ${i % 400 === 0 ? 'hikaripool' : `filler${i % 50}`}`],
    }));
    const index = build(docs);
    const stats: Bm25SearchStats = { candidates: 0, scored: 0 };
    const hits = index.search('hikaripool timeout service', 5, stats);
    expect(hits.map((hit) => hit.key)).toEqual(['d0', 'd400', 'd800', 'd1200', 'd1600']);
    expect(stats.scored).toBeLessThan(100);
    expectSameRanking(hits, bruteForce(docs, 'hikaripool timeout service', 5));
  });

  it.each([
    ['an empty query', '', 5, []],
    ['a query of punctuation', '!!!', 5, []],
    ['an unknown term', 'kubernetes', 5, []],
    ['a zero limit', 'timeout', 0, []],
    ['a repeated term (counted again, like MiniSearch)', 'timeout timeout', 5, ['b', 'a']],
  ])('answers %s', (_name, query, limit, keys) => {
    const index = new Bm25Index({ boosts: BOOSTS, tokenize });
    index.add('a', ['pool', '', 'timeout pool pool pool pool pool']);
    index.add('b', ['timeout', '', 'short']);
    expect(index.search(query, limit).map((hit) => hit.key)).toEqual(keys);
  });

  it('refuses a duplicate key and reports removing an unknown one', () => {
    const index = new Bm25Index({ boosts: BOOSTS, tokenize });
    index.add('a', ['x', 'y', 'z']);
    expect(() => index.add('a', ['x', 'y', 'z'])).toThrow('duplicate index key a');
    expect(index.remove('b')).toBe(false);
    expect(index.remove('a')).toBe(true);
    expect(index.search('x', 5)).toEqual([]);
    expect(index.size).toBe(0);
  });

  it('keeps Chinese bigram matching: 支付超时 finds 支付 and 超时 entries, best the one with both', () => {
    const index = new Bm25Index({ boosts: BOOSTS, tokenize });
    index.add('both', ['', '', '支付接口超时排查']);
    index.add('pay', ['', '', '支付成功率下降']);
    index.add('other', ['', '', '磁盘空间不足']);
    expect(index.search('支付超时', 5).map((hit) => hit.key)).toEqual(['both', 'pay']);
  });
});
