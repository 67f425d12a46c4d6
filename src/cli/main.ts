#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=262144 node --v8-pool-size=0
import { parseArgs } from 'node:util';
import { VERSION } from '../version.js';
import { DataDirLockedError } from '../dataDirLock.js';
import { PortInUseError } from '../server.js';
import { UsageError } from './usageError.js';

// Only what every command needs is imported here; each command loads its own modules when it runs,
// so that `archivist --version` or `archivist search` start as fast as node does.
const HEADER = `archivist — an AI assistant and knowledge base you can trust

Usage: archivist [command] [options]
       archivist --version | --help
`;

const RUNNING_USAGE = `Running Archivist:
  serve                 Run Archivist (default): the HTTP APIs. With everything embedded (the default
                        configuration) it also runs the workers and projections, in one process.
  worker                Run background jobs from the shared bus (BUS=nats). Any number of them.
  project               Maintain the read models in the shared read store. Any number (one applies each
                        projection at a time; the others stand by).
      --roles <list>    Run these roles instead: api, worker, projector (comma-separated).
  events [stream]       Print events as JSON lines: one stream, or all events (the audit tool).
      --from <n>        Start after global position n (all events) or at version n (one stream).
      --limit <n>       Print at most n events.
      --follow          Keep printing new events as they are appended.
  rebuild [projection]  Rebuild a projection (all when none is named) beside the active one and switch to it.
                        'vectors' names the vector index: rebuilt into a new collection from the
                        embedding cache, made active, the old one dropped.
  stats                 Print event log, projection and task statistics as JSON.
  check                 Check that the configured event store, read store and bus answer (exit 0 or 1):
                        a container health check for worker and projector processes.
`;

/** The whole usage text, with each command module's own part (loaded for it: help is rare). */
async function usage(): Promise<string> {
  const [ingest, search, ask, mcp, users, collections, settings] = await Promise.all([
    import('./people/ingestCommand.js'),
    import('./people/searchCommand.js'),
    import('./people/askCommand.js'),
    import('./mcp.js'),
    import('./users.js'),
    import('./collections.js'),
    import('./settings.js'),
  ]);
  return `${HEADER}
Using the knowledge base (against a server with --url and ARCHIVIST_KEY, or on DATA_DIR):
${ingest.INGEST_USAGE}
${search.SEARCH_USAGE}
${ask.ASK_USAGE}
${mcp.MCP_USAGE}

${RUNNING_USAGE}
Administration:
${users.USERS_USAGE}
${collections.COLLECTIONS_USAGE}
${settings.SETTINGS_USAGE}

Configuration comes from environment variables; see README.md.`;
}

function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        from: { type: 'string' },
        limit: { type: 'string' },
        follow: { type: 'boolean', default: false },
        roles: { type: 'string' },
        admin: { type: 'boolean', default: false },
        'password-stdin': { type: 'boolean', default: false },
        collection: { type: 'string' },
        json: { type: 'boolean', default: false },
        concurrency: { type: 'string' },
        user: { type: 'string' },
        url: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function main(): Promise<number> {
  const { positionals, values } = parseCommandLine();
  const [command = 'serve', ...rest] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${await usage()}\n`);
    return 0;
  }
  if (values.version || command === 'version') {
    process.stdout.write(`archivist ${VERSION}\n`);
    return 0;
  }
  const config = (await import('../config.js')).loadConfig();

  switch (command) {
    case 'serve':
    case 'worker':
    case 'project':
      return (await import('./operatorCommands.js')).run(config, command, values.roles);
    case 'events':
      return (await import('./operatorCommands.js')).printEvents(config, rest[0], values);
    case 'rebuild':
      return (await import('./operatorCommands.js')).rebuild(config, rest[0]);
    case 'stats':
      return (await import('./operatorCommands.js')).stats(config);
    case 'check':
      return (await import('./operatorCommands.js')).check(config);
    case 'users':
      return (await import('./users.js')).usersCommand(config, rest, values);
    case 'settings':
      return (await import('./settings.js')).settingsCommand(config, rest);
    case 'collections':
      return (await import('./collections.js')).collectionsCommand(config, rest);
    case 'mcp':
      return (await import('./mcp.js')).mcpCommand(config, rest, values);
    case 'ingest':
      return (await import('./people/ingestCommand.js')).ingestCommand(config, rest, values);
    case 'search':
      return (await import('./people/searchCommand.js')).searchCommand(config, rest, values);
    case 'ask':
      return (await import('./people/askCommand.js')).askCommand(config, rest, values);
    default:
      process.stderr.write(`unknown command: ${command}\n\n${await usage()}\n`);
      return 2;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`archivist: ${error.message}\n\n${await usage()}\n`);
      process.exitCode = 2;
      return;
    }
    const { ConfigError } = await import('../config.js');
    if (
      error instanceof ConfigError ||
      error instanceof DataDirLockedError ||
      error instanceof PortInUseError
    ) {
      process.stderr.write(`archivist: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(
      `archivist: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
