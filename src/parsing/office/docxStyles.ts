import { attr, childElements, firstChild, path, type XmlElement } from './xml.js';

/** A paragraph's list membership: `w:numPr` (`numId` "0" explicitly means "no list"). */
export interface NumberingRef {
  numId: string;
  level: number;
}

/** What a paragraph style (with everything it inherits) says about structure. */
export interface ParagraphStyleInfo {
  /** 1-based heading level, or null for body text. */
  headingLevel: number | null;
  /** The Title style or one based on it: consecutive Title paragraphs are one title. */
  title: boolean;
  numbering: NumberingRef | null;
  pageBreakBefore: boolean;
}

export interface DocxStyles {
  /** Resolves a paragraph style id (or the default paragraph style when absent). */
  paragraph(styleId: string | undefined): ParagraphStyleInfo;
}

/** Style names and ids that mean "heading N" in Word's built-in and localized styles. */
const HEADING_NAME =
  /^(?:heading|überschrift|berschrift|titre|kop|rubrik|overskrift|otsikko|nagłówek|nadpis|címsor|titolo|título|encabezado|cabeçalho|заголовок)\s*([1-9])$/i;
const TITLE_NAME = /^(?:title|titel|titre|titolo|título|titulo)$/i;
const SUBTITLE_NAME = /^(?:subtitle|untertitel|sous-titre|sottotitolo|subtítulo|subtitulo|ondertitel)$/i;
const MAX_CHAIN = 16;

interface RawStyle {
  name: string;
  basedOn: string | undefined;
  pPr: XmlElement | undefined;
}

const EMPTY: ParagraphStyleInfo = {
  headingLevel: null,
  title: false,
  numbering: null,
  pageBreakBefore: false,
};

/**
 * Reads `word/styles.xml`. A heading comes from the first style up the `w:basedOn` chain that says so:
 * a built-in name ("heading 2", "Title" 1, "Subtitle" 2), an explicit `w:outlineLvl` (9 means body text and stops the
 * search), or a localized style id such as `berschrift1` when the name is not English.
 */
export function readDocxStyles(root: XmlElement | null): DocxStyles {
  const styles = new Map<string, RawStyle>();
  let defaultId: string | undefined;
  for (const style of root ? childElements(root, 'style') : []) {
    if (attr(style, 'w:type') !== 'paragraph') continue;
    const id = attr(style, 'w:styleId');
    if (!id) continue;
    styles.set(id, {
      name: attr(firstChild(style, 'name'), 'w:val') ?? '',
      basedOn: attr(firstChild(style, 'basedOn'), 'w:val'),
      pPr: firstChild(style, 'pPr'),
    });
    if (isOn(style, 'w:default') && defaultId === undefined) defaultId = id;
  }
  const cache = new Map<string, ParagraphStyleInfo>();

  function resolve(id: string): ParagraphStyleInfo {
    let headingLevel: number | null | undefined;
    let title = false;
    let numbering: NumberingRef | null | undefined;
    let pageBreakBefore: boolean | undefined;
    let currentId: string | undefined = id;
    const seen = new Set<string>();
    for (let hops = 0; currentId !== undefined && hops < MAX_CHAIN && !seen.has(currentId); hops += 1) {
      seen.add(currentId);
      const style = styles.get(currentId);
      if (headingLevel === undefined) ({ level: headingLevel, title } = headingFromName(style?.name ?? ''));
      if (headingLevel === undefined) headingLevel = outlineLevel(style?.pPr);
      if (headingLevel === undefined) ({ level: headingLevel, title } = headingFromName(currentId));
      if (numbering === undefined) numbering = numberingOf(style?.pPr);
      if (pageBreakBefore === undefined) pageBreakBefore = flag(firstChild(style?.pPr, 'pageBreakBefore'));
      currentId = style?.basedOn;
    }
    return {
      headingLevel: headingLevel ?? null,
      title,
      numbering: numbering ?? null,
      pageBreakBefore: pageBreakBefore ?? false,
    };
  }

  return {
    paragraph(styleId) {
      const id = styleId ?? defaultId;
      if (id === undefined) return EMPTY;
      let info = cache.get(id);
      if (!info) {
        info = resolve(id);
        cache.set(id, info);
      }
      return info;
    },
  };
}

/** The heading level a style name (or a localized id) means, undefined for none. */
function headingFromName(name: string): { level: number | undefined; title: boolean } {
  const trimmed = name.trim();
  const heading = HEADING_NAME.exec(trimmed);
  if (heading) return { level: Number(heading[1]), title: false };
  if (TITLE_NAME.test(trimmed)) return { level: 1, title: true };
  return { level: SUBTITLE_NAME.test(trimmed) ? 2 : undefined, title: false };
}

/** `w:outlineLvl` 0–8 → heading 1–9; 9 → explicitly body text (null); absent → undefined. */
export function outlineLevel(pPr: XmlElement | undefined): number | null | undefined {
  const value = attr(firstChild(pPr, 'outlineLvl'), 'w:val');
  if (value === undefined) return undefined;
  const level = Number.parseInt(value, 10);
  return Number.isInteger(level) && level >= 0 && level <= 8 ? level + 1 : null;
}

/** `w:numPr` of a paragraph or style: undefined when absent (inherit), the reference otherwise. */
export function numberingOf(pPr: XmlElement | undefined): NumberingRef | undefined {
  const numPr = firstChild(pPr, 'numPr');
  if (!numPr) return undefined;
  const numId = attr(firstChild(numPr, 'numId'), 'w:val');
  if (numId === undefined) return undefined;
  const level = Number.parseInt(attr(firstChild(numPr, 'ilvl'), 'w:val') ?? '0', 10);
  return { numId, level: Number.isInteger(level) && level >= 0 && level <= 8 ? level : 0 };
}

/** An OOXML on/off property element: present and not `false`/`0`/`off`; undefined when absent. */
export function flag(element: XmlElement | undefined): boolean | undefined {
  if (!element) return undefined;
  const value = attr(element, 'w:val');
  return value === undefined || !/^(false|0|off)$/i.test(value);
}

function isOn(element: XmlElement, name: string): boolean {
  const value = attr(element, name);
  return value !== undefined && /^(true|1|on)$/i.test(value);
}

export interface DocxNumbering {
  /** `w:numFmt` of a list level (`bullet`, `decimal`, `none`…); null when the list is not defined. */
  format(ref: NumberingRef): string | null;
}

/**
 * Reads `word/numbering.xml`: `w:num` → `w:abstractNum` (following one `w:numStyleLink`) → level
 * format, with `w:lvlOverride` taking precedence.
 */
export function readDocxNumbering(root: XmlElement | null): DocxNumbering {
  const abstracts = new Map<string, XmlElement>();
  const byStyleLink = new Map<string, XmlElement>();
  const nums = new Map<string, XmlElement>();
  for (const child of root ? childElements(root) : []) {
    if (child.local === 'abstractNum') {
      const id = attr(child, 'w:abstractNumId');
      if (id !== undefined) abstracts.set(id, child);
      const link = attr(firstChild(child, 'styleLink'), 'w:val');
      if (link !== undefined) byStyleLink.set(link, child);
    } else if (child.local === 'num') {
      const id = attr(child, 'w:numId');
      if (id !== undefined) nums.set(id, child);
    }
  }
  const levelFormat = (container: XmlElement | undefined, level: number): string | undefined => {
    for (const lvl of container ? childElements(container, 'lvl') : []) {
      if (attr(lvl, 'w:ilvl') === String(level)) return attr(firstChild(lvl, 'numFmt'), 'w:val');
    }
    return undefined;
  };
  return {
    format({ numId, level }) {
      const num = nums.get(numId);
      if (!num) return null;
      for (const override of childElements(num, 'lvlOverride')) {
        if (attr(override, 'w:ilvl') !== String(level)) continue;
        const format = levelFormat(override, level);
        if (format !== undefined) return format;
      }
      let abstract = abstracts.get(attr(firstChild(num, 'abstractNumId'), 'w:val') ?? '');
      const link = attr(path(abstract, 'numStyleLink'), 'w:val');
      if (link !== undefined) abstract = byStyleLink.get(link) ?? abstract;
      return levelFormat(abstract, level) ?? null;
    },
  };
}
