/** Hand-written OpenDocument packages for tests: the constructs a fixture does not have, and hostile ones. */
import { buildZip, type ZipEntrySpec } from './zipWriter.js';

const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
  'xmlns:dc="http://purl.org/dc/elements/1.1/"',
  'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"',
].join(' ');

export type OdfTestKind = 'text' | 'spreadsheet' | 'presentation';

export interface OdfSpec {
  /** Inner XML of `office:text` / `office:spreadsheet` / `office:presentation`. */
  body: string;
  /** Inner XML of content.xml's `office:automatic-styles`. */
  automaticStyles?: string;
  /** Inner XML of styles.xml's `office:styles`. */
  styles?: string;
  /** Parts replaced (string) or removed (null), or added. */
  parts?: Record<string, string | Buffer | null>;
  /** The `mimetype` written, when it should differ from the kind's. */
  mimetype?: string;
}

export function odfMimetype(kind: OdfTestKind): string {
  return `application/vnd.oasis.opendocument.${kind}`;
}

export function odfContent(kind: OdfTestKind, body: string, automaticStyles = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NS} office:version="1.3"><office:automatic-styles>${automaticStyles}</office:automatic-styles><office:body><office:${kind}>${body}</office:${kind}></office:body></office:document-content>`;
}

/** An ODT/ODS/ODP package with the parts LibreOffice writes, `mimetype` first and stored. */
export function buildOdf(kind: OdfTestKind, spec: OdfSpec): Buffer {
  const parts: Record<string, string | Buffer | null> = {
    'META-INF/manifest.xml': `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="${odfMimetype(kind)}"/></manifest:manifest>`,
    'content.xml': odfContent(kind, spec.body, spec.automaticStyles),
    'styles.xml': `<office:document-styles ${NS}><office:styles>${spec.styles ?? ''}</office:styles></office:document-styles>`,
    'meta.xml': `<office:document-meta ${NS}><office:meta><dc:title>Test</dc:title></office:meta></office:document-meta>`,
    ...spec.parts,
  };
  const entries: ZipEntrySpec[] = [{ name: 'mimetype', data: spec.mimetype ?? odfMimetype(kind), method: 0 }];
  for (const [name, data] of Object.entries(parts)) if (data !== null) entries.push({ name, data });
  return buildZip(entries);
}
