/** Seeded pseudo-words, so every generated input is the same bytes on every run. */

export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

export const SYLLABLES = 'ka lo mi ne ru sa ti vo ze pa qu ri do fe gu hi ja ly mo nu'.split(' ');

export function vocabulary(random: () => number, size: number): string[] {
  return Array.from({ length: size }, () => {
    let word = '';
    const syllables = 1 + Math.floor(random() * 4);
    for (let i = 0; i < syllables; i += 1) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    return word;
  });
}
