/**
 * An in-memory BM25 index with MaxScore top-k retrieval (docs/architecture.md, knowledge base).
 *
 * Scoring is MiniSearch's, which the knowledge base used before and whose rankings tests pin: per query
 * term and field, BM25+ (k 1.2, b 0.7, d 0.5) with the field's own document frequency and its length
 * counted in distinct terms; a repeated query term counts again; the sum is multiplied by the number
 * of distinct query terms the entry matched. What differs is the work per query: postings are kept in
 * id order with an upper bound per term, so a term whose bound can no longer lift an entry into the
 * current top k is only probed for the entries other terms found (MaxScore), instead of every matching
 * entry being scored, materialised and sorted. Adding or removing an entry touches only its own terms.
 */

export interface Bm25IndexOptions {
  /** Weight of each indexed field, in the order the texts are given to `add`. */
  boosts: readonly number[];
  tokenize: (text: string) => string[];
}

/** What a search did, for specs and benches. */
export interface Bm25SearchStats {
  /** Entries reached through a posting list (each at most once). */
  candidates: number;
  /** Entries scored in full (the rest were pruned by a bound). */
  scored: number;
}

export interface Bm25Hit<T> {
  key: string;
  payload: T;
  score: number;
}

const K = 1.2;
const B = 0.7;
const D = 0.5;
/** Bounds are computed for an average field length this much above today's, so uploads rarely stale them. */
const AVERAGE_HEADROOM = 1.05;
/** How many entries of the most selective query term are scored first, to set the threshold. */
const SEEDED_ENTRIES = 64;
/** Pruning only when a bound is below the threshold by more than float rounding could explain. */
const ROUNDING = 1 + 1e-9;

interface Postings {
  /** Entry ids, ascending (ids only grow, so an add appends). */
  ids: number[];
  /** Term frequency per field, `fields` numbers per posting. */
  tfs: number[];
  /** Number of entries with the term in each field. */
  df: number[];
  /** Per field, the largest term-frequency part of any posting, valid while the average length <= cap. */
  maxPart: number[];
  averageCap: number[];
}

interface Entry<T> {
  key: string;
  payload: T;
  terms: string[];
}

interface QueryTerm {
  postings: Postings;
  weight: number;
  /** Position among the query's distinct terms: contributions are summed in this order. */
  order: number;
  idf: number[];
  bound: number;
  cursor: number;
}

export class Bm25Index<T> {
  private readonly fields: number;
  private readonly postings = new Map<string, Postings>();
  private readonly entries = new Map<number, Entry<T>>();
  private readonly idOf = new Map<string, number>();
  /** Distinct terms per field of every entry ever added, `fields` numbers per id. */
  private readonly lengths: number[] = [];
  private readonly totalLength: number[];
  private nextId = 0;

  constructor(private readonly options: Bm25IndexOptions) {
    this.fields = options.boosts.length;
    this.totalLength = new Array<number>(this.fields).fill(0);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.idOf.has(key);
  }

  /** Indexes one entry; `texts` holds one text per field. A key already present is an error. */
  add(key: string, texts: readonly string[], payload: T): void {
    if (this.idOf.has(key)) throw new Error(`duplicate index key ${key}`);
    if (texts.length !== this.fields) throw new Error(`expected ${this.fields} field texts`);
    const id = this.nextId;
    this.nextId += 1;
    const frequencies = new Map<string, number[]>();
    for (let field = 0; field < this.fields; field += 1) {
      const tokens = this.options.tokenize(texts[field]);
      for (const token of tokens) {
        let tf = frequencies.get(token);
        if (!tf) frequencies.set(token, (tf = new Array<number>(this.fields).fill(0)));
        tf[field] += 1;
      }
      const length = new Set(tokens).size;
      this.lengths[id * this.fields + field] = length;
      this.totalLength[field] += length;
    }
    this.entries.set(id, { key, payload, terms: [...frequencies.keys()] });
    this.idOf.set(key, id);
    for (const [term, tf] of frequencies) {
      let postings = this.postings.get(term);
      if (!postings) {
        postings = {
          ids: [],
          tfs: [],
          df: new Array<number>(this.fields).fill(0),
          maxPart: new Array<number>(this.fields).fill(0),
          averageCap: new Array<number>(this.fields).fill(0),
        };
        this.postings.set(term, postings);
      }
      postings.ids.push(id);
      for (let field = 0; field < this.fields; field += 1) {
        postings.tfs.push(tf[field]);
        if (tf[field] === 0) continue;
        postings.df[field] += 1;
        const part = termFrequencyPart(
          tf[field],
          this.lengths[id * this.fields + field],
          postings.averageCap[field],
        );
        if (part > postings.maxPart[field]) postings.maxPart[field] = part;
      }
    }
  }

  /** Removes an entry; returns whether it was there. Bounds stay valid (an upper bound may only loosen). */
  remove(key: string): boolean {
    const id = this.idOf.get(key);
    if (id === undefined) return false;
    const entry = this.entries.get(id)!;
    for (const term of entry.terms) {
      const postings = this.postings.get(term)!;
      const at = lowerBound(postings.ids, id, 0);
      for (let field = 0; field < this.fields; field += 1) {
        if (postings.tfs[at * this.fields + field] > 0) postings.df[field] -= 1;
      }
      postings.ids.splice(at, 1);
      postings.tfs.splice(at * this.fields, this.fields);
      if (postings.ids.length === 0) this.postings.delete(term);
    }
    for (let field = 0; field < this.fields; field += 1) {
      this.totalLength[field] -= this.lengths[id * this.fields + field];
    }
    this.entries.delete(id);
    this.idOf.delete(key);
    return true;
  }

  /** The `limit` best entries for the query, best first; equal scores keep insertion order. */
  search(query: string, limit: number, stats?: Bm25SearchStats): Bm25Hit<T>[] {
    const terms = this.queryTerms(query);
    if (terms.length === 0 || limit <= 0) return [];
    terms.sort((a, b) => a.bound - b.bound);
    // sums[i]: the bounds of the i lowest-bound terms; an entry found by none of the others can score
    // at most sums[i] * i (the raw sum times the number of terms matched).
    const sums = [0];
    for (const term of terms) sums.push(sums[sums.length - 1] + term.bound);
    const top = new TopK(limit);
    const contributions = new Array<number>(terms.length).fill(0);
    const hits = new Array<number>(terms.length).fill(0);
    let nonEssential = 0;
    const raiseThreshold = () => {
      while (
        nonEssential < terms.length &&
        sums[nonEssential + 1] * (nonEssential + 1) * ROUNDING <= top.threshold
      ) {
        nonEssential += 1;
      }
    };
    // A good threshold early is what lets the other terms be skipped: score the first entries of the
    // most selective term up front (the walk below then passes over them).
    const seeded = new Set<number>();
    const seed = terms[terms.length - 1].postings.ids;
    for (let at = 0; at < Math.min(seed.length, SEEDED_ENTRIES); at += 1) {
      const id = seed[at];
      contributions.fill(0);
      let matched = 0;
      for (const term of terms) {
        const position = lowerBound(term.postings.ids, id, 0);
        if (term.postings.ids[position] !== id) continue;
        contributions[term.order] = this.contribution(term, position, id);
        matched += 1;
      }
      seeded.add(id);
      if (stats) {
        stats.candidates += 1;
        stats.scored += 1;
      }
      if (top.offer(id, total(contributions) * matched)) raiseThreshold();
    }
    for (;;) {
      let id = Infinity;
      for (let i = nonEssential; i < terms.length; i += 1) {
        const term = terms[i];
        if (term.cursor < term.postings.ids.length && term.postings.ids[term.cursor] < id) {
          id = term.postings.ids[term.cursor];
        }
      }
      if (id === Infinity) break;
      if (seeded.has(id)) {
        for (let i = nonEssential; i < terms.length; i += 1) {
          if (terms[i].postings.ids[terms[i].cursor] === id) terms[i].cursor += 1;
        }
        continue;
      }
      if (stats) stats.candidates += 1;
      // The terms' bounds first: most candidates end here, before any exact contribution is computed.
      let matched = 0;
      let boundSum = sums[nonEssential];
      for (let i = nonEssential; i < terms.length; i += 1) {
        const term = terms[i];
        if (term.postings.ids[term.cursor] !== id) continue;
        hits[matched] = i;
        matched += 1;
        boundSum += term.bound;
      }
      if (top.full && boundSum * (matched + nonEssential) * ROUNDING <= top.threshold) {
        for (let h = 0; h < matched; h += 1) terms[hits[h]].cursor += 1;
        continue;
      }
      contributions.fill(0);
      let partial = 0;
      for (let h = 0; h < matched; h += 1) {
        const term = terms[hits[h]];
        const contribution = this.contribution(term, term.cursor, id);
        contributions[term.order] = contribution;
        partial += contribution;
        term.cursor += 1;
      }
      let pruned = false;
      for (let i = nonEssential - 1; i >= 0; i -= 1) {
        if ((partial + sums[i + 1]) * (matched + i + 1) * ROUNDING <= top.threshold) {
          pruned = true;
          break;
        }
        const term = terms[i];
        term.cursor = lowerBound(term.postings.ids, id, term.cursor);
        if (term.postings.ids[term.cursor] !== id) continue;
        const contribution = this.contribution(term, term.cursor, id);
        contributions[term.order] = contribution;
        partial += contribution;
        matched += 1;
      }
      if (pruned) continue;
      if (stats) stats.scored += 1;
      if (top.offer(id, total(contributions) * matched)) raiseThreshold();
    }
    return top.sorted().map(({ id, score }) => {
      const entry = this.entries.get(id)!;
      return { key: entry.key, payload: entry.payload, score };
    });
  }

  private queryTerms(query: string): QueryTerm[] {
    const weights = new Map<string, number>();
    for (const token of this.options.tokenize(query)) weights.set(token, (weights.get(token) ?? 0) + 1);
    const count = this.entries.size;
    const terms: QueryTerm[] = [];
    for (const [term, weight] of weights) {
      const postings = this.postings.get(term);
      if (!postings) continue;
      const idf = postings.df.map((df) => Math.log(1 + (count - df + 0.5) / (df + 0.5)));
      let bound = 0;
      for (let field = 0; field < this.fields; field += 1) {
        if (postings.df[field] === 0) continue;
        this.refreshBound(postings, field);
        bound += this.options.boosts[field] * idf[field] * (D + postings.maxPart[field]);
      }
      terms.push({ postings, weight, order: terms.length, idf, bound: bound * weight, cursor: 0 });
    }
    return terms;
  }

  /** Recomputes a field's bound when the average length has outgrown the one it was computed for. */
  private refreshBound(postings: Postings, field: number): void {
    const average = this.averageLength(field);
    if (average <= postings.averageCap[field]) return;
    const cap = average * AVERAGE_HEADROOM;
    let max = 0;
    for (let at = 0; at < postings.ids.length; at += 1) {
      const tf = postings.tfs[at * this.fields + field];
      if (tf === 0) continue;
      const part = termFrequencyPart(tf, this.lengths[postings.ids[at] * this.fields + field], cap);
      if (part > max) max = part;
    }
    postings.maxPart[field] = max;
    postings.averageCap[field] = cap;
  }

  private contribution(term: QueryTerm, at: number, id: number): number {
    let score = 0;
    for (let field = 0; field < this.fields; field += 1) {
      const tf = term.postings.tfs[at * this.fields + field];
      if (tf === 0) continue;
      const length = this.lengths[id * this.fields + field];
      score +=
        this.options.boosts[field] *
        term.idf[field] *
        (D + termFrequencyPart(tf, length, this.averageLength(field)));
    }
    return term.weight * score;
  }

  private averageLength(field: number): number {
    return this.entries.size === 0 ? 0 : this.totalLength[field] / this.entries.size;
  }
}

/** Summed in query-term order, whatever order they were computed in: equal inputs, equal scores. */
function total(contributions: number[]): number {
  let sum = 0;
  for (const contribution of contributions) sum += contribution;
  return sum;
}

/** BM25's saturating term-frequency factor; grows with the average length (0 stands for "none yet"). */
function termFrequencyPart(tf: number, length: number, average: number): number {
  const relative = average > 0 ? length / average : 1;
  return (tf * (K + 1)) / (tf + K * (1 - B + B * relative));
}

/** First position at or after `from` whose id is >= target (galloping, then binary search). */
function lowerBound(ids: number[], target: number, from: number): number {
  let low = from;
  let step = 1;
  let high = from;
  while (high < ids.length && ids[high] < target) {
    low = high + 1;
    high += step;
    step *= 2;
  }
  high = Math.min(high, ids.length);
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (ids[mid] < target) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** A bounded min-heap of (score, id): the worst kept is the lowest score, then the latest id. */
class TopK {
  private readonly heap: { id: number; score: number }[] = [];

  constructor(private readonly limit: number) {}

  get full(): boolean {
    return this.heap.length >= this.limit;
  }

  /** The score an entry must beat to get in (entries arrive in ascending id, so a tie stays out). */
  get threshold(): number {
    return this.full ? this.heap[0].score : -Infinity;
  }

  /** Returns whether the threshold may have changed. */
  offer(id: number, score: number): boolean {
    if (!this.full) {
      this.heap.push({ id, score });
      this.up(this.heap.length - 1);
      return this.full;
    }
    if (score <= this.heap[0].score) return false;
    this.heap[0] = { id, score };
    this.down(0);
    return true;
  }

  sorted(): { id: number; score: number }[] {
    return [...this.heap].sort((a, b) => b.score - a.score || a.id - b.id);
  }

  private worse(a: number, b: number): boolean {
    const x = this.heap[a];
    const y = this.heap[b];
    return x.score < y.score || (x.score === y.score && x.id > y.id);
  }

  private up(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.worse(at, parent)) return;
      [this.heap[at], this.heap[parent]] = [this.heap[parent], this.heap[at]];
      at = parent;
    }
  }

  private down(at: number): void {
    for (;;) {
      const left = at * 2 + 1;
      const right = left + 1;
      let worst = at;
      if (left < this.heap.length && this.worse(left, worst)) worst = left;
      if (right < this.heap.length && this.worse(right, worst)) worst = right;
      if (worst === at) return;
      [this.heap[at], this.heap[worst]] = [this.heap[worst], this.heap[at]];
      at = worst;
    }
  }
}
