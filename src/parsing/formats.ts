import type { ParseContext } from './context.js';
import type { Extension, ParsedDocument } from './model.js';

type Parser = (bytes: Uint8Array, ctx: ParseContext) => Promise<ParsedDocument>;

interface Format {
  description: string;
  /** Loaded on first use: most processes never parse some formats, and pdf.js alone costs ~0.4 s to load. */
  load(): Promise<Parser>;
}

const text = () => import('./text/index.js');
const office = () => import('./office/index.js');
const image = async (): Promise<Parser> => (await import('./image/parseImage.js')).parseImage;

/** Every extension Archivist parses, with what `GET /parse/formats` says of it. */
export const FORMATS: Record<Extension, Format> = {
  '.pdf': {
    description: 'PDF: text layer with headings from font sizes, tables, images; OCR for scanned pages',
    load: async () => (await import('./pdf/index.js')).parsePdf,
  },
  '.docx': {
    description: 'Word document: headings from styles, lists, tables, images, page breaks',
    load: async () => (await office()).parseDocx,
  },
  '.pptx': {
    description:
      'PowerPoint presentation: one page per slide, slide titles as headings, tables, pictures, speaker notes',
    load: async () => (await office()).parsePptx,
  },
  '.xlsx': {
    description: 'Excel workbook: one page per sheet, each sheet a table',
    load: async () => (await office()).parseXlsx,
  },
  '.odt': {
    description:
      'OpenDocument text: headings from outline levels and styles, lists, tables, images, text boxes, footnotes and endnotes',
    load: async () => (await office()).parseOdt,
  },
  '.ods': {
    description: 'OpenDocument spreadsheet: one page per sheet, each sheet a table of its used range',
    load: async () => (await office()).parseOds,
  },
  '.odp': {
    description:
      'OpenDocument presentation: one page per slide, slide titles as headings, tables, pictures, speaker notes',
    load: async () => (await office()).parseOdp,
  },
  '.html': {
    description: 'Web page: main content without navigation and boilerplate, headings, lists, tables',
    load: async () => (await text()).parseHtml,
  },
  '.htm': { description: 'Web page (same as .html)', load: async () => (await text()).parseHtml },
  '.md': {
    description: 'Markdown: headings, lists, tables, code blocks',
    load: async () => (await text()).parseMarkdown,
  },
  '.markdown': { description: 'Markdown (same as .md)', load: async () => (await text()).parseMarkdown },
  '.rst': {
    description: 'reStructuredText: section titles, lists, literal blocks, simple and grid tables',
    load: async () => (await text()).parseRst,
  },
  '.txt': {
    description: 'Plain text: paragraphs, lists, underlined headings; form feeds start pages',
    load: async () => (await text()).parseTxt,
  },
  '.json': {
    description: 'JSON: keys as headings, values as readable text, arrays of records as tables',
    load: async () => (await text()).parseJson,
  },
  '.csv': {
    description: 'CSV: one table (delimiter and header row detected)',
    load: async () => (await text()).parseCsv,
  },
  '.png': { description: 'PNG image: text by OCR (English and Arabic) and a description', load: image },
  '.jpg': { description: 'JPEG image: text by OCR (English and Arabic) and a description', load: image },
  '.jpeg': { description: 'JPEG image (same as .jpg)', load: image },
  '.tiff': {
    description: 'TIFF image, every page: text by OCR (English and Arabic) and a description',
    load: image,
  },
  '.tif': { description: 'TIFF image (same as .tiff)', load: image },
  '.bmp': { description: 'BMP image: text by OCR (English and Arabic) and a description', load: image },
};

/** Formats `/parse/sections/incremental` accepts (the spec's list). */
export const INCREMENTAL_FORMATS: readonly Extension[] = [
  '.pdf',
  '.md',
  '.markdown',
  '.txt',
  '.html',
  '.htm',
  '.docx',
];
