import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../src/log.js';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A real pino logger whose JSON lines are kept in memory, for tests about what gets logged. */
export function capturedLog(level = 'debug'): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n'))
        if (text) lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}

/** pino's numeric levels. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;
