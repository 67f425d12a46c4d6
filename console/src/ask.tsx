import { useState } from 'preact/hooks';
import { describeError, retrieval } from './api';
import { CitationDialog, CitedText, SourceList } from './citation';
import type { QueryAnswer } from './wire';
import { ErrorAlert } from './errorAlert';

/** A question answered from the stored documents, each claim numbered after the source it rests on. */
export function AskView() {
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState<QueryAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);

  const ask = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (!question.trim()) return;
    setBusy(true);
    setError(null);
    try {
      setAnswer(await retrieval<QueryAnswer>('POST', '/query', { body: { question: question.trim() } }));
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };
  const sources = answer?.sources ?? [];

  return (
    <>
      <h1>Ask</h1>
      <form class="panel" onSubmit={(event) => void ask(event)}>
        <label>
          Question
          <textarea
            dir="auto"
            rows={3}
            value={question}
            onInput={(event) => setQuestion(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Asking…' : 'Ask'}
        </button>
      </form>
      <ErrorAlert message={error} />
      <section aria-labelledby="answer-heading" aria-live="polite">
        {answer && (
          <>
            <h2 id="answer-heading">Answer</h2>
            {answer.abstained && (
              <p class="hint">The documents do not hold the answer; nearest passages below.</p>
            )}
            <CitedText text={answer.answer} citations={sources} onOpen={setOpen} />
            <h3>Sources</h3>
            <SourceList citations={sources} onOpen={setOpen} />
          </>
        )}
      </section>
      <CitationDialog
        citation={open === null ? null : (sources[open] ?? null)}
        number={(open ?? 0) + 1}
        onClose={() => setOpen(null)}
      />
    </>
  );
}
