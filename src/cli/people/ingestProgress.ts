import type { IngestOutcome } from './knowledgeClient.js';

/** Where an ingestion run says how it goes, input by input. */
export interface IngestProgress {
  /** `input` is at `stage` (uploading, queued, parse: page 2 of 9 …), `fraction` of the way. */
  stage(input: string, stage: string, fraction: number): void;
  finished(input: string, outcome: IngestOutcome): void;
  /** The run is over: leaves the terminal's line clean for the summary. */
  close(): void;
}

/** Where the progress goes: standard error, a terminal or not. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): boolean;
}

const BAR_WIDTH = 20;
/** A terminal line is redrawn at most this often: a fast run must not flood it. */
const REDRAW_MS = 100;

/** One line per finished input, for logs and pipes. */
function lines(stream: ProgressStream): IngestProgress {
  return {
    stage() {},
    finished(input, outcome) {
      const detail =
        outcome.status === 'added'
          ? ` (${outcome.title})`
          : outcome.status === 'duplicate'
            ? ` (${outcome.reason})`
            : `: ${outcome.reason}`;
      stream.write(`${outcome.status.padEnd(9)} ${input}${detail}\n`);
    },
    close() {},
  };
}

/** A single line redrawn in place: a bar, inputs done of all, and the latest input's stage. */
function bar(stream: ProgressStream, total: number, clock: () => number): IngestProgress {
  const fractions = new Map<string, number>();
  let done = 0;
  let current = '';
  let lastDraw = 0;
  let drawn = false;
  const draw = (force: boolean): void => {
    const now = clock();
    if (!force && now - lastDraw < REDRAW_MS) return;
    lastDraw = now;
    // Inputs in flight count for the share of them that is done.
    const inFlight = [...fractions.values()].reduce((sum, fraction) => sum + fraction, 0);
    const share = total === 0 ? 1 : Math.min(1, (done + inFlight) / total);
    const filled = Math.round(share * BAR_WIDTH);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total} ${current}`;
    const width = Math.max(20, (stream.columns || 80) - 1);
    stream.write(`\r\x1b[K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    drawn = true;
  };
  return {
    stage(input, stage, fraction) {
      fractions.set(input, Math.max(fractions.get(input) ?? 0, Math.min(1, fraction)));
      current = `${input} — ${stage}`;
      draw(false);
    },
    finished(input) {
      fractions.delete(input);
      done += 1;
      draw(true);
    },
    close() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}

/** The progress of `total` inputs on `stream`: a redrawn line on a terminal, else a line per input. */
export function ingestProgress(
  stream: ProgressStream,
  total: number,
  clock: () => number = Date.now,
): IngestProgress {
  return stream.isTTY ? bar(stream, total, clock) : lines(stream);
}
