import { attr, childElements, firstChild, type XmlElement } from './xml.js';

/** What a paragraph, table or sheet style (with what it inherits) says about structure. */
export interface OdfStyleInfo {
  /** Heading level a `text:p` of this style has (Title 1, Subtitle 2, an outline level); null for body text. */
  headingLevel: number | null;
  /** The Title style or one derived from it: consecutive Title paragraphs are one title. */
  title: boolean;
  /** `style:default-outline-level`: the level of a `text:h` that does not state its own. */
  outlineLevel: number | null;
  /** `fo:break-before="page"`: the paragraph or table starts a new page. */
  pageBreakBefore: boolean;
  /** `table:display="false"`: a hidden sheet. */
  hidden: boolean;
  /** `style:list-style-name`: the list style of paragraphs of this style. */
  listStyle: string | undefined;
}

export interface OdfStyles {
  style(name: string | undefined): OdfStyleInfo;
  /** Whether level `level` (1-based) of a list style is numbered; false for bullets and unknown styles. */
  ordered(listStyle: string | undefined, level: number): boolean;
}

const TITLE = /^title$/i;
const SUBTITLE = /^sub\s*title$/i;
const MAX_CHAIN = 16;
const EMPTY: OdfStyleInfo = {
  headingLevel: null,
  title: false,
  outlineLevel: null,
  pageBreakBefore: false,
  hidden: false,
  listStyle: undefined,
};

interface RawStyle {
  names: string[];
  parent: string | undefined;
  element: XmlElement;
}

/**
 * Reads `style:style` and `text:list-style` from content.xml's automatic styles and styles.xml (a
 * name found earlier wins, as automatic styles shadow common ones). Properties are looked up the
 * `style:parent-style-name` chain; a style named or displayed "Title"/"Subtitle" makes a heading of
 * level 1/2, as Word's do.
 */
export function readOdfStyles(containers: readonly XmlElement[]): OdfStyles {
  const styles = new Map<string, RawStyle>();
  const lists = new Map<string, XmlElement>();
  for (const container of containers) {
    for (const child of childElements(container)) {
      const name = attr(child, 'style:name');
      if (name === undefined) continue;
      if (child.local === 'style' && !styles.has(name)) {
        const display = attr(child, 'style:display-name');
        styles.set(name, {
          names: display === undefined ? [name] : [name, display],
          parent: attr(child, 'style:parent-style-name'),
          element: child,
        });
      } else if (child.local === 'list-style' && !lists.has(name)) lists.set(name, child);
    }
  }
  const cache = new Map<string, OdfStyleInfo>();

  function resolve(name: string): OdfStyleInfo {
    let headingLevel: number | undefined;
    let title = false;
    let outlineLevel: number | undefined;
    let pageBreakBefore: boolean | undefined;
    let hidden: boolean | undefined;
    let listStyle: string | undefined;
    const seen = new Set<string>();
    let current: string | undefined = name;
    for (let hops = 0; current !== undefined && hops < MAX_CHAIN && !seen.has(current); hops += 1) {
      seen.add(current);
      const style = styles.get(current);
      if (!style) break;
      const { element } = style;
      const spelled = style.names.map((n) => n.replace(/_20_/g, ' '));
      if (headingLevel === undefined && spelled.some((n) => TITLE.test(n))) [headingLevel, title] = [1, true];
      if (headingLevel === undefined && spelled.some((n) => SUBTITLE.test(n))) headingLevel = 2;
      const outline = Number.parseInt(attr(element, 'style:default-outline-level') ?? '', 10);
      if (outlineLevel === undefined && Number.isInteger(outline) && outline >= 1) {
        outlineLevel = Math.min(outline, 9);
      }
      const breakBefore =
        attr(firstChild(element, 'paragraph-properties'), 'fo:break-before') ??
        attr(firstChild(element, 'table-properties'), 'fo:break-before');
      if (pageBreakBefore === undefined && breakBefore !== undefined)
        pageBreakBefore = breakBefore === 'page';
      const display = attr(firstChild(element, 'table-properties'), 'table:display');
      if (hidden === undefined && display !== undefined) hidden = display === 'false';
      listStyle ??= attr(element, 'style:list-style-name');
      current = style.parent;
    }
    return {
      headingLevel: headingLevel ?? outlineLevel ?? null,
      title,
      outlineLevel: outlineLevel ?? null,
      pageBreakBefore: pageBreakBefore ?? false,
      hidden: hidden ?? false,
      listStyle,
    };
  }

  return {
    style(name) {
      if (name === undefined) return EMPTY;
      let info = cache.get(name);
      if (!info) {
        info = resolve(name);
        cache.set(name, info);
      }
      return info;
    },
    ordered(listStyle, level) {
      const list = listStyle === undefined ? undefined : lists.get(listStyle);
      if (!list) return false;
      for (const child of childElements(list)) {
        if (attr(child, 'text:level') !== String(level)) continue;
        if (child.local !== 'list-level-style-number') return false;
        const format = attr(child, 'style:num-format');
        return format === undefined || format !== '';
      }
      return false;
    },
  };
}
