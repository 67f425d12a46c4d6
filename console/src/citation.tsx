import { useEffect, useRef } from 'preact/hooks';
import type { Citation } from './wire';

const pagesOf = (citation: Citation): string | null => {
  if (citation.page_start === undefined) return null;
  const end = citation.page_end ?? citation.page_start;
  return end === citation.page_start ? `${citation.page_start}` : `${citation.page_start}–${end}`;
};

const sectionOf = (citation: Citation): string | null =>
  citation.section_path && citation.section_path.length > 0
    ? citation.section_path.join(' › ')
    : (citation.section ?? null);

/** One passage an answer cites, in a modal dialog: its document, page, section and excerpt. */
export function CitationDialog(props: { citation: Citation | null; number: number; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { citation } = props;
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (citation && !element.open) element.showModal();
    if (!citation && element.open) element.close();
  }, [citation]);

  return (
    <dialog ref={dialog} class="citation" aria-labelledby="citation-title" onClose={props.onClose}>
      {citation && (
        <>
          <h2 id="citation-title">
            Source [{props.number}]: <span dir="auto">{citation.title ?? citation.doc_id}</span>
          </h2>
          <dl class="facts">
            {citation.source && (
              <>
                <dt>Source</dt>
                <dd dir="auto">{citation.source}</dd>
              </>
            )}
            {pagesOf(citation) && (
              <>
                <dt>Page</dt>
                <dd>{pagesOf(citation)}</dd>
              </>
            )}
            {sectionOf(citation) && (
              <>
                <dt>Section</dt>
                <dd dir="auto">{sectionOf(citation)}</dd>
              </>
            )}
            <dt>Document id</dt>
            <dd>
              <code>{citation.doc_id}</code>
            </dd>
            <dt>Score</dt>
            <dd>{citation.score.toFixed(3)}</dd>
          </dl>
          <h3>Excerpt</h3>
          <blockquote class="excerpt" dir="auto">
            {citation.excerpt?.text ?? '(no excerpt)'}
          </blockquote>
          <form method="dialog">
            <button type="submit">Close</button>
          </form>
        </>
      )}
    </dialog>
  );
}

/**
 * An answer's text with its `[n]` markers as buttons that open source n; the text keeps its own
 * direction (Arabic right to left).
 */
export function CitedText(props: {
  text: string;
  citations: readonly Citation[];
  onOpen: (index: number) => void;
}) {
  const parts = props.text.split(/(\[\d+\])/);
  return (
    <p class="answer" dir="auto">
      {parts.map((part, at) => {
        const marker = /^\[(\d+)\]$/.exec(part);
        const index = marker ? Number(marker[1]) - 1 : -1;
        if (!marker || !props.citations[index]) return part;
        return (
          <button
            key={at}
            type="button"
            class="cite"
            aria-label={`Open source ${index + 1}`}
            onClick={() => props.onOpen(index)}
          >
            {part}
          </button>
        );
      })}
    </p>
  );
}

/** The numbered list of an answer's sources, each opening its dialog. */
export function SourceList(props: { citations: readonly Citation[]; onOpen: (index: number) => void }) {
  if (props.citations.length === 0) return null;
  return (
    <ol class="sources">
      {props.citations.map((citation, index) => (
        <li key={`${citation.doc_id}-${index}`}>
          <button type="button" class="link" onClick={() => props.onOpen(index)}>
            <span dir="auto">{citation.title ?? citation.doc_id}</span>
            {pagesOf(citation) ? `, page ${pagesOf(citation)}` : ''}
          </button>
        </li>
      ))}
    </ol>
  );
}
