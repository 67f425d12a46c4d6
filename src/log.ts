import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout. `silent` in tests unless LOG_LEVEL asks for more. */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({
    name: options.name ?? 'archivist',
    level: options.level ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

export const silentLogger: Logger = pino({ level: 'silent' });
