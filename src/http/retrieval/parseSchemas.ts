import { errorSchema } from './schemas.js';

/** JSON schemas of the /parse* endpoints: form fields, and the responses published in OpenAPI. */

const flag = (defaultValue: boolean, description: string) =>
  ({ type: 'boolean', default: defaultValue, description }) as const;
const cleaningFields = {
  remove_urls: flag(true, 'Remove URLs from the text'),
  normalize_arabic: flag(
    true,
    'Normalise Arabic character variants in the text (tatweel, presentation forms)',
  ),
} as const;
const tableMode = {
  type: 'string',
  enum: ['accurate', 'fast'],
  default: 'fast',
  description: '`accurate` also reads drawn table borders (PDF); `fast` uses text alignment only',
} as const;
const chunkSizes = {
  target_chunk_words: {
    type: 'integer',
    minimum: 1,
    maximum: 100_000,
    default: 500,
    description: 'Chunk size to aim for, in words',
  },
  max_chunk_words: {
    type: 'integer',
    minimum: 1,
    maximum: 100_000,
    default: 1500,
    description: 'No chunk is longer (words); at least target_chunk_words',
  },
} as const;
export const fileField = { file: { required: true, multiple: false, description: 'The document' } } as const;
export const fileErrors = {
  413: {
    description: 'The file is larger than the upload limit, or than a parsing limit',
    schema: errorSchema,
  },
  415: {
    description: 'Unsupported format, or a file whose bytes are not of the type its name says',
    schema: errorSchema,
  },
  422: {
    description: 'Invalid fields, or a corrupt, encrypted, empty or too complex document',
    schema: errorSchema,
  },
  503: { description: 'Too many documents are waiting to be parsed; retry later', schema: errorSchema },
} as const;
export const sseResponse = {
  200: {
    description: 'Server-Sent Events: `data: <JSON>` lines, each with a `type`',
    contentType: 'text/event-stream',
    schema: { type: 'string' },
  },
} as const;

const table = {
  type: 'object',
  required: ['index', 'page_number', 'rows', 'cols', 'content', 'markdown'],
  properties: {
    index: { type: 'integer' },
    page_number: { type: 'integer' },
    rows: { type: 'integer' },
    cols: { type: 'integer' },
    content: { type: 'string', description: 'Plain text, one line per row, cells separated by " | "' },
    markdown: { type: 'string' },
  },
} as const;
const image = {
  type: 'object',
  required: ['index', 'page_number', 'description'],
  properties: {
    index: { type: 'integer' },
    page_number: { type: 'integer' },
    description: { type: 'string' },
  },
} as const;
const metadata = {
  type: 'object',
  required: ['num_pages', 'title', 'author'],
  properties: {
    num_pages: { type: 'integer' },
    title: { type: 'string' },
    author: { type: ['string', 'null'] },
    language: { type: ['string', 'null'], description: 'Dominant ISO 639-1 language, when it can be told' },
  },
} as const;
const pages = {
  type: 'array',
  description:
    'Per page: whether it had a text layer, and what OCR did (not_needed, skipped, applied, failed)',
  items: {
    type: 'object',
    properties: {
      page_number: { type: 'integer' },
      has_text_layer: { type: 'boolean' },
      ocr: { type: 'string', enum: ['not_needed', 'skipped', 'applied', 'failed'] },
      note: { type: ['string', 'null'] },
    },
  },
} as const;
const warnings = {
  type: 'array',
  items: { type: 'string' },
  description: 'Problems that did not stop parsing',
} as const;

const chunkSchema = {
  type: 'object',
  required: [
    'chunk_id',
    'content',
    'section_path',
    'heading',
    'heading_level',
    'page_start',
    'page_end',
    'tables',
    'images',
    'chunk_index',
    'total_chunks',
    'word_count',
    'parent_section_id',
    'language',
    'is_continuation',
  ],
  properties: {
    chunk_id: { type: 'string' },
    content: { type: 'string' },
    section_path: { type: 'string', description: 'Headings enclosing the chunk, joined with " > "' },
    heading: { type: 'string' },
    heading_level: { type: 'integer' },
    page_start: { type: 'integer' },
    page_end: { type: 'integer' },
    tables: { type: 'array', items: table },
    images: { type: 'array', items: image },
    chunk_index: { type: 'integer' },
    total_chunks: {
      type: 'integer',
      description:
        'Chunks of the document. In the incremental stream, before the end: the chunks known so far (a running count; see total_chunks_final)',
    },
    word_count: { type: 'integer' },
    parent_section_id: { type: ['string', 'null'] },
    language: { type: 'string' },
    is_continuation: { type: 'boolean' },
  },
} as const;

const statsSchema = {
  type: 'object',
  required: [
    'strategy_used',
    'total_chunks',
    'sections_found',
    'pages_processed',
    'total_words',
    'heading_distribution',
    'avg_chunk_words',
  ],
  properties: {
    strategy_used: { type: 'string', enum: ['semantic', 'page', 'paragraph', 'disabled'] },
    total_chunks: { type: 'integer' },
    sections_found: { type: 'integer' },
    pages_processed: { type: 'integer' },
    total_words: { type: 'integer' },
    heading_distribution: { type: 'object', additionalProperties: { type: 'integer' } },
    avg_chunk_words: { type: 'number' },
  },
} as const;

export const parseResultSchema = {
  type: 'object',
  required: [
    'success',
    'source_file',
    'format',
    'metadata',
    'content',
    'tables',
    'tables_count',
    'images',
    'images_count',
    'full_text',
    'llm_ready',
  ],
  properties: {
    success: { type: 'boolean' },
    source_file: { type: 'string' },
    format: { type: 'string', description: 'Extension with the dot' },
    metadata,
    content: {
      type: 'object',
      required: ['cleaned_text', 'char_count'],
      properties: { cleaned_text: { type: 'string' }, char_count: { type: 'integer' } },
    },
    tables: { type: 'array', items: table },
    tables_count: { type: 'integer' },
    images: { type: 'array', items: image },
    images_count: { type: 'integer' },
    full_text: { type: 'string' },
    llm_ready: { type: 'string' },
    pages,
    warnings,
  },
} as const;

export const sectionsResultSchema = {
  type: 'object',
  required: ['success', 'source_file', 'format', 'metadata', 'chunks', 'chunking_stats', 'full_text'],
  properties: {
    success: { type: 'boolean' },
    source_file: { type: 'string' },
    format: { type: 'string' },
    metadata,
    chunks: { type: 'array', items: chunkSchema },
    chunking_stats: statsSchema,
    full_text: { type: ['string', 'null'] },
    pages,
    warnings,
  },
} as const;

/** Form fields of each endpoint (validated like query parameters: strings coerced). */
export const parseFields = {
  type: 'object',
  properties: {
    include_tables: flag(true, 'Tables in full_text'),
    include_images: flag(true, 'Image descriptions in full_text'),
    enable_ocr: flag(false, 'OCR pages without a text layer (images are always read)'),
    enable_image_description: flag(
      true,
      'Describe images (the vision model when configured, else the local describer)',
    ),
    table_mode: tableMode,
    ...cleaningFields,
    summarize_llm_ready: flag(
      true,
      'Summarise llm_ready (off automatically above 5 MB or 50,000 characters)',
    ),
  },
  required: [
    'include_tables',
    'include_images',
    'enable_ocr',
    'enable_image_description',
    'table_mode',
    'remove_urls',
    'normalize_arabic',
    'summarize_llm_ready',
  ],
  additionalProperties: false,
} as const;

export const sectionsFields = {
  type: 'object',
  properties: {
    enable_ocr: flag(false, 'OCR pages without a text layer (images are always read)'),
    enable_picture_description: flag(
      true,
      'Describe images (the vision model when configured, else the local describer)',
    ),
    table_mode: tableMode,
    ...cleaningFields,
    chunking_mode: {
      type: 'string',
      enum: ['auto', 'semantic', 'page', 'paragraph', 'disabled'],
      default: 'auto',
      description:
        'auto analyses the structure and picks one; semantic: by headings; page; paragraph; disabled: one chunk (split only above max_chunk_words)',
    },
    ...chunkSizes,
    include_full_text: flag(false, 'Also return the full text'),
  },
  required: [
    'enable_ocr',
    'enable_picture_description',
    'table_mode',
    'remove_urls',
    'normalize_arabic',
    'chunking_mode',
    'target_chunk_words',
    'max_chunk_words',
    'include_full_text',
  ],
  additionalProperties: false,
} as const;

export const streamFields = {
  type: 'object',
  properties: {
    enable_ocr: flag(false, 'OCR pages without a text layer (images are always read)'),
    enable_picture_description: flag(true, 'Describe images'),
    table_mode: tableMode,
    ...cleaningFields,
  },
  required: ['enable_ocr', 'enable_picture_description', 'table_mode', 'remove_urls', 'normalize_arabic'],
  additionalProperties: false,
} as const;

export const incrementalFields = {
  type: 'object',
  properties: { ...cleaningFields, ...chunkSizes },
  required: ['remove_urls', 'normalize_arabic', 'target_chunk_words', 'max_chunk_words'],
  additionalProperties: false,
} as const;
