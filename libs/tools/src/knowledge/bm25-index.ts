/**
 * A compact in-memory BM25 index with MaxScore top-k retrieval (docs/knowledge.md).
 *
 * Scoring is MiniSearch's, which the knowledge base used before and whose rankings tests pin: per query
 * term and field, BM25+ (k 1.2, b 0.7, d 0.5) with the field's own document frequency and its length
 * counted in distinct terms; a repeated query term counts again; the sum is multiplied by the number
 * of distinct query terms the entry matched. Postings are kept in id order with an upper bound per term,
 * so a term whose bound can no longer lift an entry into the current top k is only probed for the
 * entries other terms found (MaxScore).
 *
 * The index holds only what ranking needs, in typed arrays: per term one Uint32Array of (entry id,
 * packed term frequencies) pairs, per-term statistics in arrays indexed by a term number, field lengths
 * per entry. Entry texts are not kept (the caller keeps them elsewhere, e.g. MySQL, and fetches the
 * top k by key). Term frequencies are packed 32 / fields bits each and saturate there (1023 with three
 * fields), which only a text repeating one term over a thousand times reaches.
 */

export interface Bm25IndexOptions {
  /** Weight of each indexed field, in the order the texts are given to `add` (at most 4 fields). */
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

export interface Bm25Hit {
  key: string;
  score: number;
}

/** What the index holds, for health and benches. */
export interface Bm25IndexFootprint {
  entries: number;
  terms: number;
  postings: number;
  /** Bytes of the typed arrays (postings, statistics, lengths); strings and maps come on top. */
  typedArrayBytes: number;
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
/** A new term's posting capacity (pairs): most terms are rare. */
const INITIAL_POSTINGS = 1;

interface QueryTerm {
  /** (id, packed frequencies) pairs; `count` of them are in use. */
  postings: Uint32Array;
  count: number;
  weight: number;
  /** Position among the query's distinct terms: contributions are summed in this order. */
  order: number;
  idf: number[];
  bound: number;
  /** Pair index of the next posting to visit. */
  cursor: number;
}

export class Bm25Index {
  private readonly fields: number;
  private readonly tfBits: number;
  private readonly tfMax: number;
  /** Term number per term; numbers of removed terms are reused. */
  private readonly termNumbers = new Map<string, number>();
  private readonly freeTerms: number[] = [];
  private termCapacity = 0;
  private postings: Uint32Array[] = [];
  /** Pairs in use per term number. */
  private postingCounts = new Int32Array(0);
  /** Per term number and field: entries with the term in the field. */
  private documentFrequency = new Int32Array(0);
  /** Per term number and field: the largest term-frequency part, valid while the average length <= cap. */
  private maxPart = new Float64Array(0);
  private averageCap = new Float64Array(0);
  /** Entry key per id (undefined once removed) and id per key. */
  private readonly keys: (string | undefined)[] = [];
  private readonly idOf = new Map<string, number>();
  /** Distinct terms per field of every entry ever added, `fields` numbers per id. */
  private lengths = new Uint32Array(0);
  private readonly totalLength: number[];
  private nextId = 0;
  private postingTotal = 0;

  constructor(private readonly options: Bm25IndexOptions) {
    this.fields = options.boosts.length;
    if (this.fields < 1 || this.fields > 4) throw new Error('a BM25 index has 1 to 4 fields');
    this.tfBits = Math.floor(32 / this.fields);
    this.tfMax = 2 ** this.tfBits - 1;
    this.totalLength = new Array<number>(this.fields).fill(0);
  }

  get size(): number {
    return this.idOf.size;
  }

  has(key: string): boolean {
    return this.idOf.has(key);
  }

  footprint(): Bm25IndexFootprint {
    let typedArrayBytes =
      this.postingCounts.byteLength +
      this.documentFrequency.byteLength +
      this.maxPart.byteLength +
      this.averageCap.byteLength +
      this.lengths.byteLength;
    for (const list of this.postings) typedArrayBytes += list?.byteLength ?? 0;
    return {
      entries: this.size,
      terms: this.termNumbers.size,
      postings: this.postingTotal,
      typedArrayBytes,
    };
  }

  /** Indexes one entry; `texts` holds one text per field. A key already present is an error. */
  add(key: string, texts: readonly string[]): void {
    if (this.idOf.has(key)) throw new Error(`duplicate index key ${key}`);
    if (texts.length !== this.fields) throw new Error(`expected ${this.fields} field texts`);
    const id = this.nextId;
    this.nextId += 1;
    this.ensureEntryCapacity(id + 1);
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
    this.keys[id] = key;
    this.idOf.set(key, id);
    for (const [term, tf] of frequencies) {
      const number = this.termNumber(term);
      let packed = 0;
      for (let field = 0; field < this.fields; field += 1) {
        const frequency = Math.min(tf[field], this.tfMax);
        packed = (packed | (frequency << (this.tfBits * field))) >>> 0;
        if (frequency === 0) continue;
        const at = number * this.fields + field;
        this.documentFrequency[at] += 1;
        const part = termFrequencyPart(
          frequency,
          this.lengths[id * this.fields + field],
          this.averageCap[at],
        );
        if (part > this.maxPart[at]) this.maxPart[at] = part;
      }
      this.append(number, id, packed);
    }
  }

  /** Removes an entry; returns whether it was there. */
  remove(key: string): boolean {
    return this.removeAll([key]) === 1;
  }

  /**
   * Removes the entries with these keys (unknown keys are skipped); returns how many were removed. The
   * index keeps no term list per entry, so this visits every term once: remove a document's entries
   * together. Bounds stay valid (an upper bound may only loosen).
   */
  removeAll(keys: readonly string[]): number {
    const ids: number[] = [];
    for (const key of keys) {
      const id = this.idOf.get(key);
      if (id === undefined) continue;
      ids.push(id);
      this.idOf.delete(key);
      this.keys[id] = undefined;
      for (let field = 0; field < this.fields; field += 1) {
        this.totalLength[field] -= this.lengths[id * this.fields + field];
      }
    }
    if (ids.length === 0) return 0;
    ids.sort((a, b) => a - b);
    for (const [term, number] of [...this.termNumbers]) this.dropPostings(term, number, ids);
    return ids.length;
  }

  /** The `limit` best entries for the query, best first; equal scores keep insertion order. */
  search(query: string, limit: number, stats?: Bm25SearchStats): Bm25Hit[] {
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
    const seed = terms[terms.length - 1];
    for (let at = 0; at < Math.min(seed.count, SEEDED_ENTRIES); at += 1) {
      const id = seed.postings[at * 2];
      contributions.fill(0);
      let matched = 0;
      for (const term of terms) {
        const position = lowerBound(term.postings, term.count, id, 0);
        if (idAt(term, position) !== id) continue;
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
        const next = idAt(terms[i], terms[i].cursor);
        if (next < id) id = next;
      }
      if (id === Infinity) break;
      if (seeded.has(id)) {
        for (let i = nonEssential; i < terms.length; i += 1) {
          if (idAt(terms[i], terms[i].cursor) === id) terms[i].cursor += 1;
        }
        continue;
      }
      if (stats) stats.candidates += 1;
      // The terms' bounds first: most candidates end here, before any exact contribution is computed.
      let matched = 0;
      let boundSum = sums[nonEssential];
      for (let i = nonEssential; i < terms.length; i += 1) {
        const term = terms[i];
        if (idAt(term, term.cursor) !== id) continue;
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
        term.cursor = lowerBound(term.postings, term.count, id, term.cursor);
        if (idAt(term, term.cursor) !== id) continue;
        const contribution = this.contribution(term, term.cursor, id);
        contributions[term.order] = contribution;
        partial += contribution;
        matched += 1;
      }
      if (pruned) continue;
      if (stats) stats.scored += 1;
      if (top.offer(id, total(contributions) * matched)) raiseThreshold();
    }
    return top.sorted().map(({ id, score }) => ({ key: this.keys[id]!, score }));
  }

  private termNumber(term: string): number {
    const known = this.termNumbers.get(term);
    if (known !== undefined) return known;
    const number = this.freeTerms.pop() ?? this.termNumbers.size;
    if (number >= this.termCapacity) this.growTerms(Math.max(1024, this.termCapacity * 2));
    this.termNumbers.set(term, number);
    this.postings[number] = new Uint32Array(INITIAL_POSTINGS * 2);
    this.postingCounts[number] = 0;
    for (let field = 0; field < this.fields; field += 1) {
      const at = number * this.fields + field;
      this.documentFrequency[at] = 0;
      this.maxPart[at] = 0;
      this.averageCap[at] = 0;
    }
    return number;
  }

  private growTerms(capacity: number): void {
    const grow = <A extends Int32Array | Float64Array>(from: A, make: (length: number) => A): A => {
      const to = make(capacity * this.fields);
      to.set(from);
      return to;
    };
    const counts = new Int32Array(capacity);
    counts.set(this.postingCounts);
    this.postingCounts = counts;
    this.documentFrequency = grow(this.documentFrequency, (length) => new Int32Array(length));
    this.maxPart = grow(this.maxPart, (length) => new Float64Array(length));
    this.averageCap = grow(this.averageCap, (length) => new Float64Array(length));
    this.termCapacity = capacity;
  }

  private ensureEntryCapacity(entries: number): void {
    if (entries * this.fields <= this.lengths.length) return;
    const lengths = new Uint32Array(Math.max(1024, entries * 2) * this.fields);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }

  /** Appends a posting (ids only grow, so the list stays in id order), doubling the list when full. */
  private append(number: number, id: number, packed: number): void {
    let list = this.postings[number];
    const count = this.postingCounts[number];
    if ((count + 1) * 2 > list.length) {
      const grown = new Uint32Array(Math.max(2, list.length * 2));
      grown.set(list);
      this.postings[number] = list = grown;
    }
    list[count * 2] = id;
    list[count * 2 + 1] = packed;
    this.postingCounts[number] = count + 1;
    this.postingTotal += 1;
  }

  /** Drops the postings of the (sorted) removed ids from one term; forgets the term when none is left. */
  private dropPostings(term: string, number: number, ids: number[]): void {
    const list = this.postings[number];
    const count = this.postingCounts[number];
    if (count === 0 || ids[ids.length - 1] < list[0] || ids[0] > list[(count - 1) * 2]) return;
    let write = 0;
    let next = 0;
    for (let read = 0; read < count; read += 1) {
      const id = list[read * 2];
      while (next < ids.length && ids[next] < id) next += 1;
      if (next < ids.length && ids[next] === id) {
        const packed = list[read * 2 + 1];
        for (let field = 0; field < this.fields; field += 1) {
          if (this.frequency(packed, field) > 0) this.documentFrequency[number * this.fields + field] -= 1;
        }
        continue;
      }
      if (write !== read) {
        list[write * 2] = id;
        list[write * 2 + 1] = list[read * 2 + 1];
      }
      write += 1;
    }
    this.postingTotal -= count - write;
    this.postingCounts[number] = write;
    if (write > 0) {
      // Give back what a shrunk list no longer needs.
      if (write * 8 <= list.length) this.postings[number] = list.slice(0, write * 4);
      return;
    }
    this.termNumbers.delete(term);
    this.postings[number] = EMPTY;
    this.freeTerms.push(number);
  }

  private frequency(packed: number, field: number): number {
    return this.fields === 1 ? packed : (packed >>> (this.tfBits * field)) & this.tfMax;
  }

  private queryTerms(query: string): QueryTerm[] {
    const weights = new Map<string, number>();
    for (const token of this.options.tokenize(query)) weights.set(token, (weights.get(token) ?? 0) + 1);
    const count = this.size;
    const terms: QueryTerm[] = [];
    for (const [term, weight] of weights) {
      const number = this.termNumbers.get(term);
      if (number === undefined) continue;
      const idf: number[] = [];
      let bound = 0;
      for (let field = 0; field < this.fields; field += 1) {
        const df = this.documentFrequency[number * this.fields + field];
        idf.push(Math.log(1 + (count - df + 0.5) / (df + 0.5)));
        if (df === 0) continue;
        this.refreshBound(number, field);
        bound += this.options.boosts[field] * idf[field] * (D + this.maxPart[number * this.fields + field]);
      }
      terms.push({
        postings: this.postings[number],
        count: this.postingCounts[number],
        weight,
        order: terms.length,
        idf,
        bound: bound * weight,
        cursor: 0,
      });
    }
    return terms;
  }

  /** Recomputes a field's bound when the average length has outgrown the one it was computed for. */
  private refreshBound(number: number, field: number): void {
    const at = number * this.fields + field;
    const average = this.averageLength(field);
    if (average <= this.averageCap[at]) return;
    const cap = average * AVERAGE_HEADROOM;
    const list = this.postings[number];
    let max = 0;
    for (let pair = 0; pair < this.postingCounts[number]; pair += 1) {
      const tf = this.frequency(list[pair * 2 + 1], field);
      if (tf === 0) continue;
      const part = termFrequencyPart(tf, this.lengths[list[pair * 2] * this.fields + field], cap);
      if (part > max) max = part;
    }
    this.maxPart[at] = max;
    this.averageCap[at] = cap;
  }

  private contribution(term: QueryTerm, at: number, id: number): number {
    const packed = term.postings[at * 2 + 1];
    let score = 0;
    for (let field = 0; field < this.fields; field += 1) {
      const tf = this.frequency(packed, field);
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
    return this.size === 0 ? 0 : this.totalLength[field] / this.size;
  }
}

const EMPTY = new Uint32Array(0);

/** The entry id at a pair index, Infinity past the end. */
function idAt(term: QueryTerm, at: number): number {
  return at < term.count ? term.postings[at * 2] : Infinity;
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

/** First pair index at or after `from` whose id is >= target (galloping, then binary search). */
function lowerBound(pairs: Uint32Array, count: number, target: number, from: number): number {
  let low = from;
  let step = 1;
  let high = from;
  while (high < count && pairs[high * 2] < target) {
    low = high + 1;
    high += step;
    step *= 2;
  }
  high = Math.min(high, count);
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (pairs[mid * 2] < target) low = mid + 1;
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
