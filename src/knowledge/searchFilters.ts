import type { Filter } from '../readStore/readStore.js';

/** A field's wanted value, or any of several (`in`). */
export type FilterValue = string | readonly string[];

/**
 * What a search may be narrowed to, by the documents' fields (additive to the spec): equality or
 * `in` on each, and a range of creation times. Applied inside both retrievers, so `top_k` counts
 * only chunks of matching documents.
 */
export interface SearchFilters {
  language?: FilterValue;
  section?: FilterValue;
  source?: FilterValue;
  title?: FilterValue;
  collection?: FilterValue;
  /** The file type, as the document's `format`: `.pdf`, `.md` … (a web page's is `.html`). */
  format?: FilterValue;
  doc_id?: FilterValue;
  /** ISO 8601 instants, both ends included. */
  created_at?: { from?: string; to?: string };
}

/** The filter keys (their wire names) and the document field each reads. */
export const FILTER_FIELDS = {
  language: 'language',
  section: 'section',
  source: 'source',
  title: 'title',
  collection: 'collection',
  format: 'format',
  doc_id: 'id',
} as const;

export const hasFilters = (filters: SearchFilters | undefined): filters is SearchFilters =>
  filters !== undefined && Object.keys(filters).length > 0;

/**
 * The documents read model's filter for `filters`, leaving out the `hidden` collections (those the
 * caller may not see): a wanted collection among them matches nothing.
 */
export function documentFilter(filters: SearchFilters, hidden: readonly string[] = []): Filter {
  const filter: Filter = {};
  for (const [key, field] of Object.entries(FILTER_FIELDS)) {
    const value = filters[key as keyof typeof FILTER_FIELDS];
    if (value === undefined) continue;
    filter[field] = typeof value === 'string' ? value : { $in: [...value] };
  }
  if (hidden.length > 0) {
    const wanted = filters.collection;
    filter['collection'] =
      wanted === undefined
        ? { $nin: [...hidden] }
        : {
            $in: (typeof wanted === 'string' ? [wanted] : [...wanted]).filter(
              (name) => !hidden.includes(name),
            ),
          };
  }
  const range = filters.created_at;
  if (range?.from !== undefined || range?.to !== undefined) {
    filter['createdAt'] = {
      ...(range.from !== undefined ? { $gte: new Date(range.from).toISOString() } : {}),
      ...(range.to !== undefined ? { $lte: new Date(range.to).toISOString() } : {}),
    };
  }
  return filter;
}

/** The JSON schema of `filters` in request bodies: an unknown key is refused, naming it. */
export const FILTERS_SCHEMA = {
  type: 'object',
  // Refused, not dropped (unknown body fields are dropped elsewhere): a mistyped key would widen
  // the search without the client knowing.
  propertyNames: { enum: [...Object.keys(FILTER_FIELDS), 'created_at'] },
  description:
    'Narrows the search to documents whose fields match (additive to the spec): a string for equality, an array of strings for any of them; created_at a range of ISO 8601 instants, both ends included. Applied inside both retrievers, so top_k counts only matching chunks.',
  properties: {
    ...Object.fromEntries(
      Object.keys(FILTER_FIELDS).map((key) => [
        key,
        {
          oneOf: [
            { type: 'string', minLength: 1, maxLength: 2_048 },
            {
              type: 'array',
              minItems: 1,
              maxItems: 1_000,
              items: { type: 'string', minLength: 1, maxLength: 2_048 },
            },
          ],
        },
      ]),
    ),
    created_at: {
      type: 'object',
      propertyNames: { enum: ['from', 'to'] },
      minProperties: 1,
      properties: {
        from: { type: 'string', format: 'date-time' },
        to: { type: 'string', format: 'date-time' },
      },
    },
  },
} as const;
