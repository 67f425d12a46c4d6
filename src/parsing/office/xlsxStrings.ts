import type { Budget } from './budget.js';
import { decodeEntities } from './xml.js';

const PREFIX = '(?:[\\w.-]+:)?';
/** Any tag, then the text after it up to the next tag: `[, "/"?, name, "/"?, text]`. */
const TAG = new RegExp(`<(/?)${PREFIX}([\\w.-]+)[^<>]*?(/?)>([^<]*)`, 'g');

/** An inline string (`<is>`): the text of its runs, without phonetic guides, `_xHHHH_` escapes decoded. */
export function richText(xml: string): string {
  let text = '';
  walkText(xml, (chunk) => {
    text += chunk;
  });
  return cleanText(decodeEntities(text));
}

/** Reads `xl/sharedStrings.xml`, one string per `<si>` (rich text runs joined, phonetic guides dropped). */
export function scanSharedStrings(xml: string, budget: Budget): string[] {
  const strings: string[] = [];
  let current: string | null = null;
  const finish = (text: string): void => {
    const clean = cleanText(decodeEntities(text));
    budget.addText(clean);
    strings.push(clean);
  };
  walkText(
    xml,
    (chunk) => {
      if (current !== null) current += chunk;
    },
    (event) => {
      if (event === 'open') current = '';
      else if (event === 'empty') finish('');
      else if (current !== null) {
        finish(current);
        current = null;
      }
    },
  );
  return strings;
}

/**
 * One linear pass over the tags: hands over the text of each `<t>` outside `<rPh>` (phonetic
 * guides), and tells `onItem` where each `<si>` opens and closes.
 */
function walkText(
  xml: string,
  onText: (text: string) => void,
  onItem?: (event: 'open' | 'close' | 'empty') => void,
): void {
  let phonetic = 0;
  TAG.lastIndex = 0;
  for (let match = TAG.exec(xml); match; match = TAG.exec(xml)) {
    const [, closing, name, selfClosing, after = ''] = match;
    if (name === 't') {
      if (!closing && !selfClosing && phonetic === 0) onText(after);
    } else if (name === 'rPh') {
      if (closing) phonetic = Math.max(phonetic - 1, 0);
      else if (!selfClosing) phonetic += 1;
    } else if (name === 'si' && onItem) {
      onItem(closing ? 'close' : selfClosing ? 'empty' : 'open');
    }
  }
}

/** Decodes the `_xHHHH_` escapes Excel writes for characters XML cannot hold. */
export function cleanText(text: string): string {
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_whole, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}
