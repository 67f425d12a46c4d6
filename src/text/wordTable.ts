/**
 * Distinct words met, each with a dense id, found from a span of some text without making a string
 * of the span: a string is made once per new word. Looking words up by string in a `Map` meant
 * slicing and hashing every token again (most of keeping the in-memory text index up to date, and a
 * third of the local embedder's time); this hashes the span's characters, probes typed arrays and
 * compares characters in place. Whoever keeps something per word keeps it in an array by id.
 */
export class WordTable {
  private readonly words: string[] = [];
  private hashes = new Uint32Array(1024);
  /** Open addressing: id + 1 per slot, 0 for empty. Kept at most half full. */
  private slots = new Int32Array(2048);

  get size(): number {
    return this.words.length;
  }

  word(id: number): string {
    return this.words[id]!;
  }

  /** The id of `text.slice(start, end)`: a new id (the next, `size`) when the word is new. */
  idOf(text: string, start: number, end: number): number {
    // FNV-1a over the UTF-16 code units.
    let hash = 0x811c9dc5;
    for (let i = start; i < end; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    hash >>>= 0;
    const mask = this.slots.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return this.add(text.slice(start, end), hash, slot);
      const id = entry - 1;
      if (this.hashes[id] === hash) {
        const word = this.words[id]!;
        if (word.length === length && text.startsWith(word, start)) return id;
      }
    }
  }

  private add(word: string, hash: number, slot: number): number {
    const id = this.words.length;
    this.words.push(word);
    if (id === this.hashes.length) {
      const hashes = new Uint32Array(id * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[id] = hash;
    this.slots[slot] = id + 1;
    if (this.words.length * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.words.length; id += 1) {
      let slot = this.hashes[id]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}
