import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import { openSafeZip, type SafeZip } from './safeZip.js';
import { attr, childElements, decodeXml, parseXml, type XmlElement } from './xml.js';

/** What Office writes for a password-protected OOXML file: an OLE compound file, not a ZIP. */
const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

export interface Relationship {
  id: string;
  /** The relationship type URI; compare with `isRelType` (transitional and strict URIs differ). */
  type: string;
  /** Part name the target resolves to (no leading slash), or the raw target when external. */
  target: string;
  external: boolean;
}

/** An opened OOXML package: the safe ZIP plus helpers to read parts and their relationships. */
export interface OfficePackage {
  zip: SafeZip;
  /** Reads and parses an XML part; `null` when the part is absent. */
  readXml(part: string): Promise<XmlElement | null>;
  /** Reads a part as text; `null` when absent. */
  readText(part: string): Promise<string | null>;
  /** Relationships of a part (`''` for the package itself), keyed by id; empty when it has none. */
  relationships(part: string): Promise<Map<string, Relationship>>;
  /** The part the package's main relationship points to (e.g. `word/document.xml`), if it exists. */
  mainPart(fallback: string): Promise<string | null>;
}

/**
 * Opens DOCX/PPTX/XLSX bytes. An OLE/CFB file is what Office writes when a password protects the
 * document, so it is `encrypted_document`; everything else goes through `openSafeZip`.
 */
async function openOfficePackage(bytes: Uint8Array, ctx: ParseContext): Promise<OfficePackage> {
  if (bytes.byteLength >= CFB_SIGNATURE.length && CFB_SIGNATURE.every((b, i) => bytes[i] === b)) {
    throw new ParseError(
      'encrypted_document',
      'the file is an OLE compound file, which is how Office stores a password-protected document',
    );
  }
  const zip = await openSafeZip(bytes, ctx);
  const relsCache = new Map<string, Map<string, Relationship>>();

  const readText = async (part: string): Promise<string | null> => {
    const data = await zip.read(part);
    return data ? decodeXml(data) : null;
  };
  const readXml = async (part: string): Promise<XmlElement | null> => {
    const text = await readText(part);
    return text === null ? null : parseXml(text, part, ctx.limits);
  };
  const relationships = async (part: string): Promise<Map<string, Relationship>> => {
    const cached = relsCache.get(part);
    if (cached) return cached;
    const root = await readXml(relsPartFor(part));
    const rels = new Map<string, Relationship>();
    for (const rel of root ? childElements(root, 'Relationship') : []) {
      const id = attr(rel, 'Id');
      const type = attr(rel, 'Type') ?? '';
      const target = attr(rel, 'Target');
      if (!id || target === undefined) continue;
      const external = attr(rel, 'TargetMode') === 'External';
      const resolved = external ? target : resolvePartName(part, target);
      if (resolved !== null) rels.set(id, { id, type, target: resolved, external });
    }
    relsCache.set(part, rels);
    return rels;
  };
  const mainPart = async (fallback: string): Promise<string | null> => {
    const rels = await relationships('');
    for (const rel of rels.values()) {
      if (isRelType(rel, 'officeDocument') && !rel.external && zip.has(rel.target)) return rel.target;
    }
    return zip.has(fallback) ? fallback : null;
  };
  return { zip, readXml, readText, relationships, mainPart };
}

/** A package's main part, parsed, with its relationships. */
export interface MainPart {
  pkg: OfficePackage;
  /** Part name, e.g. `word/document.xml`. */
  part: string;
  root: XmlElement;
  rels: Map<string, Relationship>;
}

/**
 * Opens the package and its main part, found through the package's `officeDocument` relationship
 * (else at `defaultPart`). A missing main part, or one whose root element is not `rootLocal`, means
 * the ZIP is not this kind of document: `corrupt_document`.
 */
export async function openMainPart(
  bytes: Uint8Array,
  ctx: ParseContext,
  expected: { defaultPart: string; rootLocal: string; kind: string },
): Promise<MainPart> {
  const pkg = await openOfficePackage(bytes, ctx);
  const part = await pkg.mainPart(expected.defaultPart);
  if (part === null) {
    throw new ParseError(
      'corrupt_document',
      `the ZIP has no ${expected.defaultPart}: it is not ${expected.kind}`,
    );
  }
  const root = await pkg.readXml(part);
  if (root?.local !== expected.rootLocal) {
    throw new ParseError('corrupt_document', `${part} is not the main part of ${expected.kind}`);
  }
  return { pkg, part, root, rels: await pkg.relationships(part) };
}

/** The first internal relationship of a type (`styles`, `notesSlide`…), if any. */
export function findRel(rels: ReadonlyMap<string, Relationship>, type: string): Relationship | undefined {
  for (const rel of rels.values()) if (!rel.external && isRelType(rel, type)) return rel;
  return undefined;
}

/** Whether a relationship has the given type, whatever the namespace (transitional or strict). */
export function isRelType(rel: Relationship, suffix: string): boolean {
  return rel.type.endsWith(`/${suffix}`);
}

/** `word/document.xml` → `word/_rels/document.xml.rels`; `''` (the package) → `_rels/.rels`. */
function relsPartFor(part: string): string {
  const slash = part.lastIndexOf('/');
  return slash === -1 ? `_rels/${part}.rels` : `${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`;
}

/**
 * Resolves a relationship target against its source part, as OPC says: absolute targets from the
 * package root, relative ones from the source's folder. `null` when it climbs above the root.
 */
function resolvePartName(sourcePart: string, target: string): string | null {
  let decoded = target;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    // A malformed escape: keep the raw target.
  }
  const base = decoded.startsWith('/') ? [] : sourcePart.split('/').slice(0, -1);
  const segments = [...base];
  for (const segment of decoded.split(/[\\/]/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return null;
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  return segments.join('/');
}
