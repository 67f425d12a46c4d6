import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import type { PackageProperties } from './officeMetadata.js';
import { openSafeZip, type SafeZip } from './safeZip.js';
import {
  attr,
  childElements,
  decodeXml,
  descendants,
  firstChild,
  ownText,
  parseXml,
  type XmlElement,
} from './xml.js';

/** The three OpenDocument kinds Archivist reads, by the `office:body` child that holds their content. */
export type OdfKind = 'text' | 'spreadsheet' | 'presentation';

const MEDIA_TYPES: Record<OdfKind, string> = {
  text: 'application/vnd.oasis.opendocument.text',
  spreadsheet: 'application/vnd.oasis.opendocument.spreadsheet',
  presentation: 'application/vnd.oasis.opendocument.presentation',
};

const KIND_NAMES: Record<OdfKind, string> = {
  text: 'an OpenDocument text (.odt)',
  spreadsheet: 'an OpenDocument spreadsheet (.ods)',
  presentation: 'an OpenDocument presentation (.odp)',
};

/** An opened OpenDocument package: its content, its styles, and what its meta part says. */
export interface OdfPackage {
  zip: SafeZip;
  /** `office:text`, `office:spreadsheet` or `office:presentation` inside content.xml's `office:body`. */
  body: XmlElement;
  /** Automatic styles of content.xml, then the common and automatic styles of styles.xml. */
  styleContainers: XmlElement[];
  properties: PackageProperties;
}

/**
 * Opens ODT/ODS/ODP bytes through the same safe ZIP as the Office formats (entry count, bombs,
 * lying sizes, unsafe names). An encrypted package (the manifest lists encryption data) is
 * `encrypted_document`; a package without content.xml, with another `mimetype`, or whose body is of
 * another kind is `corrupt_document`; XML goes through the same hardened reader (no DTDs, bounded
 * depth) as OOXML parts.
 */
export async function openOdfPackage(
  bytes: Uint8Array,
  ctx: ParseContext,
  kind: OdfKind,
): Promise<OdfPackage> {
  const zip = await openSafeZip(bytes, ctx);
  const readXml = async (part: string): Promise<XmlElement | null> => {
    const data = await zip.read(part);
    return data === null ? null : parseXml(decodeXml(data), part, ctx.limits);
  };
  const mimetype = await zip.read('mimetype');
  const declared = mimetype === null ? null : decodeXml(mimetype).trim();
  if (declared !== null && declared !== MEDIA_TYPES[kind] && !declared.startsWith(`${MEDIA_TYPES[kind]}-`)) {
    throw new ParseError('corrupt_document', `the package says it is ${declared}, not ${KIND_NAMES[kind]}`);
  }
  const manifest = await readXml('META-INF/manifest.xml');
  if (manifest && descendants(manifest, 'encryption-data').length > 0) {
    throw new ParseError(
      'encrypted_document',
      'the OpenDocument package is encrypted (saved with a password)',
    );
  }
  const content = await readXml('content.xml');
  if (content === null)
    throw new ParseError('corrupt_document', `the ZIP has no content.xml: it is not ${KIND_NAMES[kind]}`);
  if (content.local !== 'document-content') {
    throw new ParseError('corrupt_document', 'content.xml is not an OpenDocument content part');
  }
  const body = firstChild(firstChild(content, 'body'), kind);
  if (!body)
    throw new ParseError(
      'corrupt_document',
      `content.xml has no office:${kind}: it is not ${KIND_NAMES[kind]}`,
    );
  const styles = await readXml('styles.xml');
  const styleContainers = [content, styles]
    .flatMap((root) => (root ? childElements(root) : []))
    .filter((child) => child.local === 'automatic-styles' || child.local === 'styles');
  const meta = await readXml('meta.xml');
  return { zip, body, styleContainers, properties: readOdfMeta(meta) };
}

const META_FIELDS: Record<string, string> = {
  subject: 'subject',
  description: 'description',
  keyword: 'keywords',
  'creation-date': 'created',
  date: 'modified',
  language: 'declaredLanguage',
  generator: 'application',
};

/** `meta.xml`'s Dublin Core and ODF fields, shaped like an OOXML package's properties. */
function readOdfMeta(root: XmlElement | null): PackageProperties {
  const meta = firstChild(root ?? undefined, 'meta');
  const values = new Map<string, string>();
  for (const field of meta ? childElements(meta) : []) {
    const text = ownText(field).replace(/\s+/g, ' ').trim();
    if (text && !values.has(field.local)) values.set(field.local, text);
  }
  const extra: Record<string, string | number> = {};
  for (const [local, key] of Object.entries(META_FIELDS)) {
    const value = values.get(local);
    if (value) extra[key] = value;
  }
  const pages = Number.parseInt(attr(firstChild(meta, 'document-statistic'), 'meta:page-count') ?? '', 10);
  return {
    title: values.get('title') ?? null,
    creator: values.get('creator') ?? values.get('initial-creator') ?? null,
    extra,
    pages: Number.isFinite(pages) && pages > 0 ? pages : null,
  };
}
