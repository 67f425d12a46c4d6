/**
 * Counts of 32-bit feature hashes for one text at a time: an open-addressing table in typed arrays,
 * reused from text to text (only the slots a text used are cleared). A `Map` cost ~100 ns a count,
 * most of the local embedder's time; this is several times cheaper. The list of used slots is a
 * typed array kept too: a fresh array per text, grown push by push, was ~25 KB of garbage a chunk,
 * most of what embedding allocated. Hashes are signed 32-bit integers: V8 keeps those unboxed, where
 * an unsigned hash above 2³¹ passed to `add` was a heap number allocated per count (~100 KB of
 * garbage a README).
 */
export class FeatureCounts {
  private keys = new Int32Array(1 << 12);
  private counts = new Uint32Array(1 << 12);
  private weights = new Float64Array(1 << 12);
  private used = new Int32Array(1 << 11);
  private usedCount = 0;
  private shift = 32 - 12;

  add(hash: number, weight: number): void {
    if ((this.usedCount + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let slot = Math.imul(hash, 0x9e3779b1) >>> this.shift;
    while (this.counts[slot] !== 0 && this.keys[slot] !== hash) slot = (slot + 1) & mask;
    if (this.counts[slot] === 0) {
      this.keys[slot] = hash;
      this.weights[slot] = weight;
      this.used[this.usedCount++] = slot;
    }
    this.counts[slot]! += 1;
  }

  /** Each counted hash with its weight (as first added) and count; then the table is empty again. */
  drain(visit: (hash: number, weight: number, count: number) => void): void {
    for (let i = 0; i < this.usedCount; i += 1) {
      const slot = this.used[i]!;
      visit(this.keys[slot]!, this.weights[slot]!, this.counts[slot]!);
      this.counts[slot] = 0;
    }
    this.usedCount = 0;
  }

  private grow(): void {
    const entries = Array.from(
      this.used.subarray(0, this.usedCount),
      (slot) => [this.keys[slot]!, this.weights[slot]!, this.counts[slot]!] as const,
    );
    const size = this.keys.length * 2;
    this.keys = new Int32Array(size);
    this.counts = new Uint32Array(size);
    this.weights = new Float64Array(size);
    this.used = new Int32Array(size / 2);
    this.usedCount = 0;
    this.shift -= 1;
    for (const [hash, weight, count] of entries) {
      this.add(hash, weight);
      this.counts[this.used[this.usedCount - 1]!] = count;
    }
  }
}
