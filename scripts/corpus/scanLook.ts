/**
 * What the corpus scripts share to make a page image look scanned: a seeded random source (so a
 * rebuild gives the same bytes), greedy word wrap, XML escaping for SVG text, and paper, grain and
 * specks laid over a rendered greyscale page.
 */

/** A deterministic generator of numbers in [0, 1) (mulberry32). */
export function seeded(seed: number): () => number {
  let state = seed * 2654435761;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Greedy word wrap at `maxChars` characters a line. */
export function wrap(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > maxChars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Paper tone, ink that is not quite black, grain and a few specks, as a cheap scanner gives, over a
 * greyscale rendering (255 = white paper, 0 = ink). `paper` is the paper's grey (0–255), `noise`
 * the grain's spread.
 */
export function scanLook(
  rendered: Uint8Array,
  look: { paper: number; noise: number; seed: number },
): Uint8Array {
  const random = seeded(look.seed);
  const pixels = new Uint8Array(rendered.length);
  for (let i = 0; i < rendered.length; i += 1) {
    const ink = 1 - (rendered[i] ?? 255) / 255;
    const base = look.paper * (1 - ink) + 40 * ink;
    const grain = (random() + random() + random() - 1.5) * look.noise;
    const speck = random() < 0.0008 ? -120 : 0;
    pixels[i] = Math.max(0, Math.min(255, Math.round(base + grain + speck)));
  }
  return pixels;
}
