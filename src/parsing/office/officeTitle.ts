import type { Block } from '../model.js';

type Heading = Extract<Block, { type: 'heading' }>;

export interface TitleLines {
  /**
   * Adds a heading; `title` says it is a paragraph of the Title style. A Title paragraph right after
   * a Title paragraph continues it: a document has one title, and a long one is often typed as
   * several Title paragraphs ("Application Programmer's Interface" / "for" / "ODFPY 0.9.1"), so they
   * make one heading. A Subtitle after the title stays a heading of its own, one level below.
   */
  push<T>(out: Array<T | Heading>, heading: Heading, title: boolean): void;
}

/** One per document walk: it remembers the heading the last Title paragraph made. */
export function createTitleLines(): TitleLines {
  let open: Heading | null = null;
  return {
    push(out, heading, title) {
      if (title && open !== null && out[out.length - 1] === open) {
        open.text = `${open.text} ${heading.text}`;
        return;
      }
      out.push(heading);
      open = title ? heading : null;
    },
  };
}
