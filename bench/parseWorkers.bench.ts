/**
 * Ingestion wall time with one and with two parse workers (issue 24: two workers on two cores ≥ 1.7×
 * one): the same Markdown, joined into documents of ~250 kB (parse-heavy, few per-upload costs),
 * uploaded with `/upload` two at a time into a fresh compiled server with PARSE_WORKERS=1 or 2, after
 * the same warm-up. Rounds alternate (1, 2, 1, 2…), PARSE_ROUNDS (default 3); medians.
 */
import { joined, measure, megabytesOf, warmUpInputs } from './ingestionSupport.js';
import { readmes } from './registryDocuments.js';
import { build, machine, median } from './support.js';

const ROUNDS = Number(process.env['PARSE_ROUNDS'] ?? 3);

console.log(`machine: ${machine()}`);
build();
const markdown = readmes(4_000_000);
const documents = joined(markdown, 250_000);
const warm = warmUpInputs(markdown).slice(0, 40);
console.log(`${documents.length} documents, ${megabytesOf(documents).toFixed(2)} MB, two uploads in flight`);
const walls: Record<1 | 2, number[]> = { 1: [], 2: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  for (const workers of [1, 2] as const) {
    const { wall, cpu } = await measure(documents, warm, '/upload', { PARSE_WORKERS: String(workers) });
    walls[workers].push(wall);
    console.log(
      `round ${round + 1}, ${workers} parse worker(s): ${wall.toFixed(2)} s wall, ${cpu.toFixed(2)} CPU-s`,
    );
  }
}
const one = median(walls[1]);
const two = median(walls[2]);
console.log(
  `one worker ${one.toFixed(2)} s, two workers ${two.toFixed(2)} s: ${(one / two).toFixed(2)}× (target ≥ 1.7×)`,
);
