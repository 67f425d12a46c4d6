/**
 * The import rules of src, checked by test/architecture.test.ts (so CI fails on a violation).
 * Layers, from the ground up: text and the domain import nothing of ours outside themselves; the
 * ports and their adapters (event store, read store, bus, blob store, vectors, models, parsing, log
 * processing) import nothing from the modules built on them; HTTP reaches engines only through ports
 * and the knowledge base only through its use cases.
 */
const ADAPTER_FOLDERS =
  'eventStore|readStore|bus|blobStore|vector|models|parsing|text|logProcessing|rateLimit';
const UPPER_FOLDERS =
  'http|cli|mcp|commands|knowledge|chat|tools|conversations|users|settings|onboarding|workers|projections|scrape';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import each other cannot be read, tested or loaded one at a time.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      comment:
        'Deciders and events are pure: no I/O, no clock, no library, nothing of ours outside the domain.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/domain/' },
    },
    {
      name: 'text-is-the-ground-floor',
      comment: 'Tokenising, normalising and stemming serve every layer, so they import none.',
      severity: 'error',
      from: { path: '^src/text/' },
      to: { path: '^src/', pathNot: '^src/text/' },
    },
    {
      name: 'ports-do-not-import-their-users',
      comment: 'Ports and adapters are below the modules that use them.',
      severity: 'error',
      from: { path: `^src/(${ADAPTER_FOLDERS})/` },
      to: { path: `^src/((${UPPER_FOLDERS})/|runtime[.]ts|server[.]ts|process[.]ts)` },
    },
    {
      name: 'http-reaches-engines-through-ports',
      comment: 'Routes translate HTTP; which engine serves a port is the runtime’s business.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: {
        path: '^src/(eventStore|readStore|bus|blobStore|vector)/(sqlite|mongo|esdb|postgres|nats|milvus|memory|file|local)[A-Za-z]*[.]ts$',
      },
    },
    {
      name: 'http-goes-through-use-cases',
      comment:
        'Routes, MCP tools and the people’s CLI translate requests into use cases (knowledge/knowledgeUseCases.ts and the modules’ services); they neither run commands nor start or await jobs themselves.',
      severity: 'error',
      from: { path: '^src/(http|mcp|cli/people)/' },
      to: {
        path: '^src/(commands/(newTask|commandService|reservation)|knowledge/(ingest|ingestJobs|awaitTask|scrapeJob|embedChunks))[.]ts$',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
