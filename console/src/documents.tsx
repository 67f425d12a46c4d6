import { useEffect, useMemo, useState } from 'preact/hooks';
import { assistant, describeError, retrieval } from './api';
import { ActionDecision } from './pendingActions';
import type { DocumentPage, DocumentRecord, ToolOutcome } from './wire';
import { DataTable } from './dataTable';
import { ErrorAlert } from './errorAlert';

const PAGE_SIZE = 100;

interface Filters {
  text: string;
  collection: string;
  format: string;
  language: string;
}
const NO_FILTERS: Filters = { text: '', collection: '', format: '', language: '' };

type FieldFilter = 'collection' | 'format' | 'language';
const FIELD_FILTERS: readonly FieldFilter[] = ['collection', 'format', 'language'];

/** The values of each field seen so far: a select keeps offering them once the list is narrowed. */
type SeenValues = Record<FieldFilter, readonly string[]>;
const NOTHING_SEEN: SeenValues = { collection: [], format: [], language: [] };

function withSeen(seen: SeenValues, documents: readonly DocumentRecord[]): SeenValues {
  const values = (key: FieldFilter): string[] =>
    [...new Set([...seen[key], ...documents.map((document) => document.metadata[key] ?? '')])]
      .filter(Boolean)
      .sort();
  return { collection: values('collection'), format: values('format'), language: values('language') };
}

/** Title, source or section containing the text: narrowed within the page loaded. */
function matches(document: DocumentRecord, text: string): boolean {
  const { metadata } = document;
  const wanted = text.trim().toLowerCase();
  return !wanted || `${metadata.title} ${metadata.source} ${metadata.section}`.toLowerCase().includes(wanted);
}

type Deletion =
  | { state: 'asking' }
  | { state: 'pending'; actionId: string }
  | { state: 'deleted' }
  | { state: 'failed'; message: string };

/**
 * The stored documents, a page of 100 at a time: the list API narrows them by collection, type and
 * language; the text filter narrows the page loaded by title, source or section. Deleting goes through
 * the assistant's delete_document tool, so the deletion policy applies: when it asks for
 * confirmation, the pending action is shown here to approve or reject.
 */
export function DocumentsView() {
  const [page, setPage] = useState(1);
  const [listing, setListing] = useState<DocumentPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [deletions, setDeletions] = useState<Record<string, Deletion>>({});
  const [reloads, setReloads] = useState(0);
  const [seen, setSeen] = useState<SeenValues>(NOTHING_SEEN);

  useEffect(() => {
    let current = true;
    const narrowed = Object.fromEntries(FIELD_FILTERS.map((key) => [key, filters[key] || undefined]));
    retrieval<DocumentPage>('GET', '/documents', { query: { page, page_size: PAGE_SIZE, ...narrowed } })
      .then((result) => {
        if (!current) return;
        setListing(result);
        setSeen((before) => withSeen(before, result.documents));
        setError(null);
      })
      .catch((failure: unknown) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [page, reloads, filters.collection, filters.format, filters.language]);

  const documents = listing?.documents ?? [];
  const shown = useMemo(
    () => documents.filter((document) => matches(document, filters.text)),
    [documents, filters.text],
  );
  const setFilter = (key: keyof Filters) => (event: Event) => {
    setFilters({ ...filters, [key]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
    // A narrower list starts at its first page.
    if (key !== 'text') setPage(1);
  };

  const remove = async (document: DocumentRecord): Promise<void> => {
    setDeletions((all) => ({ ...all, [document.id]: { state: 'asking' } }));
    try {
      const { data } = await assistant<ToolOutcome>('POST', 'execute_tool', {
        body: { tool_name: 'delete_document', params: { doc_id: document.id } },
      });
      const next: Deletion =
        data.requires_confirmation && data.action_id
          ? { state: 'pending', actionId: data.action_id }
          : data.success
            ? { state: 'deleted' }
            : { state: 'failed', message: data.error?.message ?? 'The deletion failed' };
      setDeletions((all) => ({ ...all, [document.id]: next }));
    } catch (failure) {
      setDeletions((all) => ({
        ...all,
        [document.id]: { state: 'failed', message: describeError(failure) },
      }));
    }
  };

  const select = (key: FieldFilter, label: string) => (
    <label>
      {label}
      <select value={filters[key]} onChange={setFilter(key)}>
        <option value="">Any</option>
        {seen[key].map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <>
      <h1>Documents</h1>
      <form
        class="filters"
        role="search"
        aria-label="Filter documents"
        onSubmit={(event) => event.preventDefault()}
      >
        <label>
          Title or source contains
          <input type="search" value={filters.text} onInput={setFilter('text')} />
        </label>
        {select('collection', 'Collection')}
        {select('format', 'Type')}
        {select('language', 'Language')}
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setFilters(NO_FILTERS);
            setPage(1);
          }}
        >
          Clear filters
        </button>
        <button type="button" class="secondary" onClick={() => setReloads((count) => count + 1)}>
          Reload
        </button>
      </form>
      <ErrorAlert message={error} />
      {listing && (
        <p role="status">
          {listing.total} documents; showing {shown.length} of page {listing.page} of{' '}
          {Math.max(1, listing.pages)}.
        </p>
      )}
      {shown.length > 0 && (
        <DataTable
          caption="Stored documents"
          captionHidden
          columns={['Title', 'Source', 'Collection', 'Type', 'Language', 'Chunks', 'Actions']}
        >
          {shown.map((document) => {
            const deletion = deletions[document.id];
            return (
              <tr key={document.id}>
                <td dir="auto">{document.metadata.title}</td>
                <td dir="auto" class="wrap">
                  {document.metadata.source}
                </td>
                <td>{document.metadata.collection ?? ''}</td>
                <td>{document.metadata.format ?? ''}</td>
                <td>{document.metadata.language}</td>
                <td>{document.metadata.chunk_count ?? ''}</td>
                <td>
                  {!deletion && (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete ${document.metadata.title}`}
                      onClick={() => void remove(document)}
                    >
                      Delete
                    </button>
                  )}
                  {deletion?.state === 'asking' && <span role="status">Asking…</span>}
                  {deletion?.state === 'deleted' && <span role="status">Deleted.</span>}
                  {deletion?.state === 'failed' && (
                    <span role="alert" class="error">
                      {deletion.message}
                    </span>
                  )}
                  {deletion?.state === 'pending' && (
                    <ActionDecision
                      actionId={deletion.actionId}
                      summary={`delete “${document.metadata.title}”`}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      {listing && listing.pages > 1 && (
        <nav aria-label="Pages of documents" class="pager">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <button type="button" disabled={page >= listing.pages} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      )}
    </>
  );
}
