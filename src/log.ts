import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout, or on stderr where stdout carries something else (MCP's stdio
 * protocol, a command's answer). `silent` in tests unless LOG_LEVEL asks for more.
 */
export function createLogger(
  options: { level?: string; name?: string; to?: 'stdout' | 'stderr' } = {},
): Logger {
  const settings = {
    name: options.name ?? 'archivist',
    level: options.level ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return options.to === 'stderr' ? pino(settings, pino.destination({ dest: 2, sync: true })) : pino(settings);
}

export const silentLogger: Logger = pino({ level: 'silent' });
