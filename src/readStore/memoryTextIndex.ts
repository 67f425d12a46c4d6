/**
 * An inverted index of one text table held in memory, for the queries that dominate retrieval:
 * match-any, unfiltered, top k by BM25. FTS5 scores every row of a query's common terms through
 * `bm25()`, row by row (~7 ms a query at 100k chunks, most of /search); summing precomputed term
 * frequencies over typed arrays does the same in a fraction of a millisecond.
 *
 * Scoring is FTS5's `bm25()` (k1 1.2, b 0.75, every column weight 1, a document's length all its
 * tokens, an IDF of at most 0 counted as 1e-6, a term repeated in the query counted each time), over
 * the same stemmed tokens, so pages match what the full-text table answers. Documents are numbered
 * by slot: a changed row takes a new slot and its old one is dead; postings of dead slots are
 * skipped and, once they are many, dropped by compaction.
 */

import { forEachFoldedWord } from '../text/textTokens.js';
import { WordTable } from '../text/wordTable.js';

const K1 = 1.2;
const B = 0.75;
const MIN_IDF = 1e-6;
/** Floating-point slack in MaxScore's comparisons: sums in another order differ in the last bits. */
const SLACK = 1 + 1e-9;
/** Distinct words remembered with their lists, at most; past it the table starts again. */
const WORD_TABLE_LIMIT = 500_000;

export interface MemoryHit {
  rowid: number;
  score: number;
}

/** A growable list of (slot, frequency) pairs. */
class Postings {
  slots = new Int32Array(4);
  counts = new Uint16Array(4);
  length = 0;
  /** Occurrences in the row being indexed, not yet pushed. */
  pending = 0;

  push(slot: number, count: number): void {
    if (this.length === this.slots.length) {
      const slots = new Int32Array(this.length * 2);
      slots.set(this.slots);
      this.slots = slots;
      const counts = new Uint16Array(this.length * 2);
      counts.set(this.counts);
      this.counts = counts;
    }
    this.slots[this.length] = slot;
    this.counts[this.length] = Math.min(count, 65_535);
    this.length += 1;
  }

  /** Keeps the postings of slots still alive, under their new numbers (-1: dead). */
  renumber(renumbered: Int32Array): void {
    let kept = 0;
    for (let at = 0; at < this.length; at += 1) {
      const slot = renumbered[this.slots[at]!]!;
      if (slot < 0) continue;
      this.slots[kept] = slot;
      this.counts[kept] = this.counts[at]!;
      kept += 1;
    }
    this.length = kept;
  }
}

export class MemoryTextIndex {
  private readonly postings = new Map<string, Postings>();
  private rowidOfSlot = new Float64Array(1024);
  private lengthOfSlot = new Uint32Array(1024);
  private alive = new Uint8Array(1024);
  private slots = 0;
  private readonly slotOfRow = new Map<number, number>();
  private liveRows = 0;
  private liveTokens = 0;
  private dead = 0;
  private scores = new Float64Array(0);
  /**
   * The slots a query touched, and those MaxScore keeps, reused from query to query: a common term
   * touches half the rows, and a fresh array of them each query (~300 KiB at 100k rows) was most of
   * what a search allocated, which at hundreds of searches a second filled the old generation.
   */
  private touched = new Int32Array(0);
  private candidates = new Int32Array(0);
  private marked = new Uint8Array(0);
  private normCache = new Float64Array(0);
  private normAverage = Number.NaN;
  private normSlots = 0;
  /**
   * Words met in rows, and each one's list (its stem's), by word id: a row's tokens are found
   * without a string made or hashed per token (see WordTable). Lists are renumbered in place by
   * compaction, so these stay valid.
   */
  private words = new WordTable();
  private listOfWord: Postings[] = [];
  /** The lists the row being indexed touches, and the text being scanned. */
  private readonly rowLists: Postings[] = [];
  private scanned = '';
  private scannedTokens = 0;
  private stem: (word: string) => string = (word) => word;

  constructor(private readonly options: { wordTableLimit?: number } = {}) {}

  get rows(): number {
    return this.liveRows;
  }

  /** Indexes a row's tokens (all its text fields' together), replacing what the row had. */
  set(rowid: number, tokens: readonly string[]): void {
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    const slot = this.newSlot(rowid, tokens.length);
    for (const [token, count] of counts) this.listOf(token).push(slot, count);
  }

  /**
   * As `set`, from the row's text fields, case-folded: their words (see `forEachFoldedWord`),
   * each made a token by `stem`, which is asked once per word the index has not met.
   */
  setText(rowid: number, folded: readonly string[], stem: (word: string) => string): void {
    this.stem = stem;
    this.scannedTokens = 0;
    for (const value of folded) {
      this.scanned = value;
      forEachFoldedWord(value, this.countWord);
    }
    this.scanned = '';
    const slot = this.newSlot(rowid, this.scannedTokens);
    for (const list of this.rowLists) {
      list.push(slot, list.pending);
      list.pending = 0;
    }
    this.rowLists.length = 0;
  }

  private readonly countWord = (start: number, end: number): void => {
    let id = this.words.idOf(this.scanned, start, end);
    if (id === this.listOfWord.length) {
      if (id >= (this.options.wordTableLimit ?? WORD_TABLE_LIMIT)) {
        this.words = new WordTable();
        this.listOfWord = [];
        id = this.words.idOf(this.scanned, start, end);
      }
      this.listOfWord.push(this.listOf(this.stem(this.words.word(id))));
    }
    const list = this.listOfWord[id]!;
    if (list.pending === 0) this.rowLists.push(list);
    list.pending += 1;
    this.scannedTokens += 1;
  };

  private newSlot(rowid: number, length: number): number {
    this.delete(rowid);
    if (this.slots === this.rowidOfSlot.length) this.grow();
    const slot = this.slots++;
    this.rowidOfSlot[slot] = rowid;
    this.lengthOfSlot[slot] = length;
    this.alive[slot] = 1;
    this.slotOfRow.set(rowid, slot);
    this.liveRows += 1;
    this.liveTokens += length;
    return slot;
  }

  private listOf(token: string): Postings {
    let list = this.postings.get(token);
    if (!list) {
      list = new Postings();
      this.postings.set(token, list);
    }
    return list;
  }

  delete(rowid: number): void {
    const slot = this.slotOfRow.get(rowid);
    if (slot === undefined) return;
    this.slotOfRow.delete(rowid);
    this.alive[slot] = 0;
    this.liveRows -= 1;
    this.liveTokens -= this.lengthOfSlot[slot]!;
    this.dead += 1;
    if (this.dead > 10_000 && this.dead > this.slots / 4) this.compact();
  }

  /**
   * The `k` best rows having any of `terms` (stemmed, with repeats), best first, ties by rowid:
   * `MATCH "t1" OR "t2"… ORDER BY bm25(), rowid LIMIT k` of the full-text table, scores negated.
   */
  top(terms: readonly string[], k: number): MemoryHit[] {
    if (k <= 0 || this.liveRows === 0) return [];
    const repeatsOf = new Map<string, number>();
    for (const term of terms) repeatsOf.set(term, (repeatsOf.get(term) ?? 0) + 1);
    if (this.scores.length < this.slots) {
      this.scores = new Float64Array(this.rowidOfSlot.length);
      this.touched = new Int32Array(this.rowidOfSlot.length);
      this.candidates = new Int32Array(this.rowidOfSlot.length);
      this.marked = new Uint8Array(this.rowidOfSlot.length);
    }
    const { scores, touched, candidates, marked } = this;
    const norms = this.norms();
    // Each term's weight and the most it adds to any row; rarest (largest bound) first.
    const weighted = [...repeatsOf].flatMap(([term, repeats]) => {
      const list = this.postings.get(term);
      if (!list) return [];
      let documentFrequency = list.length;
      if (this.dead > 0) {
        documentFrequency = 0;
        for (let at = 0; at < list.length; at += 1) documentFrequency += this.alive[list.slots[at]!]!;
      }
      if (documentFrequency === 0) return [];
      const raw = Math.log((this.liveRows - documentFrequency + 0.5) / (documentFrequency + 0.5));
      const idf = (raw <= 0 ? MIN_IDF : raw) * repeats;
      return [{ list, idf, bound: idf * (K1 + 1) }];
    });
    weighted.sort((a, b) => b.bound - a.bound);
    const contribution = (idf: number, count: number, slot: number): number =>
      (idf * (count * (K1 + 1))) / (count + norms[slot]!);

    let touchedCount = 0;
    let candidateCount = -1;
    for (let term = 0; term < weighted.length; term += 1) {
      const { list, idf } = weighted[term]!;
      if (candidateCount < 0 && term > 0 && touchedCount >= k) {
        // MaxScore: once the k-th score so far beats all the rest could add, a row none of the
        // terms so far matched cannot enter the page, nor can a row that even with every remaining
        // term stays below it; only the others are scored on, by lookup, not by scanning.
        let rest = 0;
        for (let later = term; later < weighted.length; later += 1) rest += weighted[later]!.bound;
        const kth = kthScore(touched, touchedCount, scores, k);
        if (rest * SLACK < kth) {
          candidateCount = 0;
          for (let at = 0; at < touchedCount; at += 1) {
            const slot = touched[at]!;
            if (scores[slot]! + rest * SLACK >= kth) candidates[candidateCount++] = slot;
          }
        }
      }
      if (candidateCount >= 0) {
        if (candidateCount * Math.log2(list.length + 1) < list.length) {
          for (let at = 0; at < candidateCount; at += 1) {
            const slot = candidates[at]!;
            const found = findSlot(list.slots, list.length, slot);
            if (found >= 0) scores[slot]! += contribution(idf, list.counts[found]!, slot);
          }
        } else {
          // Many candidates against this list: one pass over it, candidates marked, costs less
          // than a binary search each (a 30k-candidate query took 1.7 ms by search).
          for (let at = 0; at < candidateCount; at += 1) marked[candidates[at]!] = 1;
          const { slots, counts } = list;
          for (let at = 0; at < list.length; at += 1) {
            const slot = slots[at]!;
            if (marked[slot] === 1) scores[slot]! += contribution(idf, counts[at]!, slot);
          }
          for (let at = 0; at < candidateCount; at += 1) marked[candidates[at]!] = 0;
        }
        continue;
      }
      const { slots, counts } = list;
      for (let at = 0; at < list.length; at += 1) {
        const slot = slots[at]!;
        if (this.alive[slot] === 0) continue;
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        scores[slot]! += contribution(idf, counts[at]!, slot);
      }
    }
    const best =
      candidateCount >= 0
        ? selectTop(candidates, candidateCount, scores, this.rowidOfSlot, k)
        : selectTop(touched, touchedCount, scores, this.rowidOfSlot, k);
    for (let at = 0; at < touchedCount; at += 1) scores[touched[at]!] = 0;
    return best;
  }

  /**
   * Each slot's length normalisation, `k1 × (1 − b + b × length / average)`, computed as FTS5 does;
   * kept while the average length stays the same (new slots get theirs as they come).
   */
  private norms(): Float64Array {
    const average = this.liveTokens / this.liveRows;
    if (this.normCache.length < this.rowidOfSlot.length) {
      const grown = new Float64Array(this.rowidOfSlot.length);
      grown.set(this.normCache);
      this.normCache = grown;
    }
    const from = average === this.normAverage ? this.normSlots : 0;
    for (let slot = from; slot < this.slots; slot += 1) {
      this.normCache[slot] = K1 * (1 - B + (B * this.lengthOfSlot[slot]!) / average);
    }
    this.normAverage = average;
    this.normSlots = this.slots;
    return this.normCache;
  }

  private grow(): void {
    const size = this.rowidOfSlot.length * 2;
    const rowids = new Float64Array(size);
    rowids.set(this.rowidOfSlot);
    this.rowidOfSlot = rowids;
    const lengths = new Uint32Array(size);
    lengths.set(this.lengthOfSlot);
    this.lengthOfSlot = lengths;
    const alive = new Uint8Array(size);
    alive.set(this.alive);
    this.alive = alive;
  }

  /** Renumbers live slots densely and drops the postings of dead ones. */
  private compact(): void {
    const renumbered = new Int32Array(this.slots).fill(-1);
    let next = 0;
    for (let slot = 0; slot < this.slots; slot += 1) {
      if (this.alive[slot] === 0) continue;
      renumbered[slot] = next;
      this.rowidOfSlot[next] = this.rowidOfSlot[slot]!;
      this.lengthOfSlot[next] = this.lengthOfSlot[slot]!;
      this.alive[next] = 1;
      next += 1;
    }
    this.alive.fill(0, next);
    // In place, and an emptied list stays: words hold their lists (a term with no rows scores none).
    for (const list of this.postings.values()) list.renumber(renumbered);
    this.slotOfRow.clear();
    for (let slot = 0; slot < next; slot += 1) this.slotOfRow.set(this.rowidOfSlot[slot]!, slot);
    this.slots = next;
    this.dead = 0;
    this.normAverage = Number.NaN;
  }
}

/** The position of `slot` in the first `length` of the ascending `slots`, or -1. */
function findSlot(slots: Int32Array, length: number, slot: number): number {
  let low = 0;
  let high = length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const value = slots[middle]!;
    if (value === slot) return middle;
    if (value < slot) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** Exchanges two entries of a heap. (A destructuring swap allocated an array each time here.) */
function swap(heap: Float64Array | Int32Array, a: number, b: number): void {
  const kept = heap[a]!;
  heap[a] = heap[b]!;
  heap[b] = kept;
}

/** The k-th highest score among the first `length` of `slots` (k ≤ length). */
function kthScore(slots: Int32Array, length: number, scores: Float64Array, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let index = 0; index < length; index += 1) {
    const score = scores[slots[index]!]!;
    if (size < k) {
      let at = size++;
      heap[at] = score;
      while (at > 0 && heap[(at - 1) >> 1]! > heap[at]!) {
        const parent = (at - 1) >> 1;
        swap(heap, at, parent);
        at = parent;
      }
    } else if (score > heap[0]!) {
      heap[0] = score;
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= size) break;
        const child = left + 1 < size && heap[left + 1]! < heap[left]! ? left + 1 : left;
        if (heap[child]! >= heap[at]!) break;
        swap(heap, at, child);
        at = child;
      }
    }
  }
  return heap[0]!;
}

/**
 * The `k` best of the first `length` touched slots, best first, ties by rowid: a bounded heap whose
 * root is the worst kept, so most slots cost one comparison and nothing is allocated per slot.
 */
function selectTop(
  touched: Int32Array,
  length: number,
  scores: Float64Array,
  rowids: Float64Array,
  k: number,
): MemoryHit[] {
  const heap = new Int32Array(Math.min(k, length));
  let size = 0;
  // a is worse than b: lower score, or the same score and a higher rowid.
  const worse = (a: number, b: number): boolean =>
    scores[a]! < scores[b]! || (scores[a] === scores[b] && rowids[a]! > rowids[b]!);
  const siftDown = (from: number): void => {
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) return;
      const right = left + 1;
      const child = right < size && worse(heap[right]!, heap[left]!) ? right : left;
      if (!worse(heap[child]!, heap[at]!)) return;
      swap(heap, at, child);
      at = child;
    }
  };
  for (let index = 0; index < length; index += 1) {
    const slot = touched[index]!;
    if (size < heap.length) {
      heap[size] = slot;
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!worse(heap[at]!, heap[parent]!)) break;
        swap(heap, at, parent);
        at = parent;
      }
    } else if (size > 0 && worse(heap[0]!, slot)) {
      heap[0] = slot;
      siftDown(0);
    }
  }
  const kept = Array.from(heap.subarray(0, size), (slot) => ({ rowid: rowids[slot]!, score: scores[slot]! }));
  return kept.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
}
