import { stems } from './localEmbedder.js';
import type { Reranker } from './reranker.js';

/** Words apart within which query terms count as near each other. */
const WINDOW = 8;

/**
 * The local reranker: scores each passage by how much of the query it covers (rare stems weigh
 * more), how close together the covered stems sit, and whether they open the passage. No model
 * weights exist for a cross-encoder here; an honest heuristic that rewards passages answering the
 * whole question over those repeating one of its words.
 */
export function createLocalReranker(): Reranker {
  return {
    name: 'local-term-proximity',
    async probe() {
      return { healthy: true, reason: null };
    },
    async rerank(query, passages) {
      const asked = [...new Set(stems(query))];
      if (asked.length === 0) return passages.map(() => 0);
      const tokenLists = passages.map((passage) => stems(passage));
      const frequency = new Map<string, number>();
      for (const tokens of tokenLists)
        for (const term of new Set(tokens)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
      const weight = (term: string): number =>
        Math.log(1 + (passages.length + 1) / (1 + (frequency.get(term) ?? 0)));
      const total = asked.reduce((sum, term) => sum + weight(term), 0);
      return tokenLists.map((tokens) => {
        const positions = new Map<string, number[]>();
        tokens.forEach((token, at) => {
          if (asked.includes(token)) positions.set(token, [...(positions.get(token) ?? []), at]);
        });
        const coverage = [...positions.keys()].reduce((sum, term) => sum + weight(term), 0) / total;
        // The densest window: how many distinct query stems appear within WINDOW words of each other.
        const hits = [...positions]
          .flatMap(([term, at]) => at.map((position) => ({ term, position })))
          .sort((a, b) => a.position - b.position);
        let densest = 0;
        for (let start = 0; start < hits.length; start += 1) {
          const inWindow = new Set(
            hits
              .filter(
                (hit) =>
                  hit.position >= hits[start]!.position && hit.position < hits[start]!.position + WINDOW,
              )
              .map((hit) => hit.term),
          );
          densest = Math.max(densest, inWindow.size);
        }
        const proximity = asked.length > 1 ? densest / asked.length : coverage;
        const early = hits.length > 0 && hits[0]!.position < 30 ? 0.05 : 0;
        return 0.7 * coverage + 0.25 * proximity + early;
      });
    },
  };
}
