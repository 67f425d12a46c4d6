import type { DocumentMetadata, Page } from '../model.js';
import { findRel, type OfficePackage } from './officePackage.js';
import { childElements, ownText, type XmlElement } from './xml.js';

/** What `docProps/core.xml` and `docProps/app.xml` say about a document. */
export interface PackageProperties {
  title: string | null;
  creator: string | null;
  /** Facts for `metadata.extra` (subject, created, modified, application…). */
  extra: Record<string, string | number>;
  /** `<Pages>` of app.xml (Word), when present and positive. */
  pages: number | null;
}

const CORE_FIELDS: Record<string, string> = {
  subject: 'subject',
  description: 'description',
  keywords: 'keywords',
  lastModifiedBy: 'lastModifiedBy',
  created: 'created',
  modified: 'modified',
  language: 'declaredLanguage',
  category: 'category',
  revision: 'revision',
};

/** Reads the package's core and extended properties; missing or empty parts give nulls. */
export async function readPackageProperties(pkg: OfficePackage): Promise<PackageProperties> {
  const rels = await pkg.relationships('');
  const corePart = findRel(rels, 'core-properties')?.target ?? 'docProps/core.xml';
  const appPart = findRel(rels, 'extended-properties')?.target ?? 'docProps/app.xml';
  const core = await pkg.readXml(corePart);
  const app = await pkg.readXml(appPart);
  const coreValues = core ? fieldValues(core) : new Map<string, string>();
  const appValues = app ? fieldValues(app) : new Map<string, string>();
  const extra: Record<string, string | number> = {};
  for (const [local, key] of Object.entries(CORE_FIELDS)) {
    const value = coreValues.get(local);
    if (value) extra[key] = value;
  }
  const application = appValues.get('Application');
  if (application) extra.application = application;
  const company = appValues.get('Company');
  if (company) extra.company = company;
  const pages = Number.parseInt(appValues.get('Pages') ?? '', 10);
  return {
    title: coreValues.get('title') || null,
    creator: coreValues.get('creator') || null,
    extra,
    pages: Number.isFinite(pages) && pages > 0 ? pages : null,
  };
}

function fieldValues(root: XmlElement): Map<string, string> {
  const values = new Map<string, string>();
  for (const field of childElements(root)) {
    const text = ownText(field).replace(/\s+/g, ' ').trim();
    if (text && !values.has(field.local)) values.set(field.local, text);
  }
  return values;
}

/** Builds the model's metadata: `language` stays null for the detection stage. */
export function buildMetadata(options: {
  properties: PackageProperties;
  fallbackTitle: string;
  numPages: number;
  extra?: Record<string, string | number | boolean>;
}): DocumentMetadata {
  return {
    title: options.properties.title ?? options.fallbackTitle,
    author: options.properties.creator,
    numPages: options.numPages,
    language: null,
    extra: { ...options.properties.extra, ...options.extra },
  };
}

/** Pages that carry their own text (no OCR involved), numbered from 1. */
export function textPages(count: number, notes: ReadonlyMap<number, string> = new Map()): Page[] {
  return Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    hasTextLayer: true,
    ocr: 'not_needed' as const,
    note: notes.get(i + 1) ?? null,
  }));
}
