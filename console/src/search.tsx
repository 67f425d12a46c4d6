import { useState } from 'preact/hooks';
import { describeError, retrieval } from './api';
import { CitationDialog } from './citation';
import type { Citation, SearchHit } from './wire';
import { ErrorAlert } from './errorAlert';
import { SearchForm } from './searchForm';

const citationOf = (hit: SearchHit): Citation => ({
  doc_id: hit.doc_id,
  title: hit.metadata.title,
  source: hit.source,
  section: hit.metadata.section,
  score: hit.score,
  excerpt: hit.excerpt,
});

/** Passages of the stored documents that match, best first, without an answer. */
export function SearchView() {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);

  const search = async (text: string): Promise<void> => {
    if (!text) return;
    setError(null);
    try {
      const result = await retrieval<{ results: SearchHit[] }>('POST', '/search', {
        body: { query: text, top_k: 10 },
      });
      setHits(result.results);
    } catch (failure) {
      setError(describeError(failure));
    }
  };

  return (
    <>
      <h1>Search</h1>
      <SearchForm label="Search terms" query={query} setQuery={setQuery} onSearch={search} />
      <ErrorAlert message={error} />
      {hits && (
        <section aria-labelledby="results-heading">
          <h2 id="results-heading">{hits.length} results</h2>
          <ol class="results">
            {hits.map((hit, index) => (
              <li key={`${hit.doc_id}-${index}`}>
                <h3>
                  <button type="button" class="link" onClick={() => setOpen(index)}>
                    <span dir="auto">{hit.metadata.title}</span>
                  </button>
                </h3>
                <p class="hint" dir="auto">
                  {hit.metadata.section} · score {hit.score.toFixed(3)}
                </p>
                <p dir="auto">{hit.excerpt.text}</p>
              </li>
            ))}
          </ol>
        </section>
      )}
      <CitationDialog
        citation={open === null || !hits?.[open] ? null : citationOf(hits[open])}
        number={(open ?? 0) + 1}
        onClose={() => setOpen(null)}
      />
    </>
  );
}
