import type { FoundMetadata } from './documentBuilder.js';
import { findElement, findElements, tagOf, type DomDocument } from './htmlDom.js';
import { tidyLine } from './input.js';

/**
 * Title (`og:title`, else `<title>`), author (`<meta name="author">`, else a non-URL
 * `article:author`) and a few facts for `extra`: `lang` from `<html lang>` (or `<body lang>`), description, site
 * name, publication time. Read before anything is removed from the DOM.
 */
export function readHtmlMetadata(document: DomDocument): FoundMetadata & { extra: Record<string, string> } {
  const meta = new Map<string, string>();
  for (const element of findElements(document, (candidate) => tagOf(candidate) === 'meta')) {
    const key = (element.getAttribute('property') ?? element.getAttribute('name') ?? '').trim().toLowerCase();
    const content = tidyLine(element.getAttribute('content') ?? '');
    if (key && content && !meta.has(key)) meta.set(key, content);
  }
  const titleElement = findElement(document, (candidate) => tagOf(candidate) === 'title');
  const title = meta.get('og:title') ?? tidyLine(titleElement?.textContent ?? '');
  const articleAuthor = meta.get('article:author');
  const author =
    meta.get('author') ?? (articleAuthor && !/^https?:/i.test(articleAuthor) ? articleAuthor : null);

  const extra: Record<string, string> = {};
  const lang = (
    document.documentElement?.getAttribute('lang') ?? document.body?.getAttribute('lang')
  )?.trim();
  if (lang) extra.lang = lang;
  const description = meta.get('description') ?? meta.get('og:description');
  if (description) extra.description = description;
  const siteName = meta.get('og:site_name');
  if (siteName) extra.siteName = siteName;
  const published = meta.get('article:published_time');
  if (published) extra.published = published;
  return { title: title || null, author: author ?? null, extra };
}
