import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { freePort } from '../support/freePort.js';
import { runCliAsync, type CliRun } from '../support/runCliAsync.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

interface Summary {
  added: number;
  duplicate: number;
  failed: number;
  results: Array<{ input: string; status: string; doc_id?: string; title?: string; reason?: string }>;
  skipped: Array<{ input: string; reason: string }>;
}

/**
 * A folder of small documents: nested files, a glob's worth of text files (one a copy of the guide),
 * files that fail (empty, binary), and what a folder walk leaves out (dot-files and dot-folders).
 */
async function writeLibrary(root: string, word: string): Promise<void> {
  const guide = `# Lantern Maintenance\n\n## Wicks\n\nTrim the ${word} wick every evening before lighting the lantern.\n`;
  const files: Record<string, string | Buffer> = {
    'docs/guide.md': guide,
    // The same file name as docs/guide.md in another folder: another document, not a duplicate.
    'docs/nested/guide.md': `# Rope Care\n\nCoil the ${word} rope clockwise and hang it to dry.\n`,
    'docs/nested/deeper/tides.md': `# Tide Tables\n\nThe ${word} harbour floods twice a day, at noon and at midnight.\n`,
    'docs/empty.md': '',
    'docs/garbage.txt': Buffer.from(Array.from({ length: 400 }, (_, i) => (i * 7919) % 256)),
    'docs/.notes.md': `# Hidden\n\n${word} notes nobody should ingest.\n`,
    'docs/.drafts/draft.md': `# Draft\n\n${word} draft nobody should ingest.\n`,
    'extra/alpha.txt': `Alpha ${word} notes: the ferry leaves at dawn.\n`,
    'extra/beta.txt': `Beta ${word} notes: the lighthouse keeper rings the bell at dusk.\n`,
    'extra/guide-copy.txt': guide.replace('# Lantern Maintenance\n\n## Wicks\n\n', ''),
    'extra/gamma.pdf': 'not matched by the glob',
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  // The same text as the guide, as a text file: a duplicate by content.
  await writeFile(join(root, 'extra/guide-copy.txt'), guide);
}

const summaryOf = (run: CliRun): Summary => JSON.parse(run.stdout) as Summary;

/**
 * The folder ingest both ways must give: 5 added, 1 duplicate, 2 failed (exit status 1). `at` is the
 * folder the arguments named the inputs in (as the summary shows them).
 */
function expectLibraryIngested(run: CliRun, at = ''): Summary {
  expect(run.status, run.stderr).to.equal(1);
  const summary = summaryOf(run);
  expect(summary).to.include({ added: 5, duplicate: 1, failed: 2 });
  const statusOf = (input: string) => summary.results.find((row) => row.input === `${at}${input}`);
  const rows = summary.results.map((row) => [row.input.slice(at.length), row.status]);
  expect(
    rows.filter(([input]) => input !== 'docs/guide.md' && input !== 'extra/guide-copy.txt'),
  ).to.have.deep.members([
    ['docs/empty.md', 'failed'],
    ['docs/garbage.txt', 'failed'],
    ['docs/nested/guide.md', 'added'],
    ['docs/nested/deeper/tides.md', 'added'],
    ['extra/alpha.txt', 'added'],
    ['extra/beta.txt', 'added'],
  ]);
  // The guide and its copy (the same text) are one document: whichever is claimed first is added
  // (several inputs are in flight at once), the other is its duplicate.
  const pair = [statusOf('docs/guide.md')!, statusOf('extra/guide-copy.txt')!];
  expect(pair.map((row) => row.status)).to.have.members(['added', 'duplicate']);
  expect(pair[0]!.doc_id).to.be.a('string').and.equal(pair[1]!.doc_id);
  // A text file's title is its name: the Markdown heading names the document only when the guide won.
  const [guide, copy] = pair;
  if (guide!.status === 'added') expect(guide).to.include({ title: 'Lantern Maintenance' });
  else expect(copy).to.include({ title: 'guide-copy' });
  expect(statusOf('docs/nested/guide.md')).to.include({ title: 'Rope Care' });
  expect(statusOf('docs/empty.md')).to.include({ reason: 'empty.md is empty (0 bytes)' });
  expect(statusOf('docs/garbage.txt')!.reason).to.include('its bytes are binary data');
  // Standard error is no terminal here: one line per finished input.
  expect(run.stderr).to.include(`added     ${at}docs/nested/deeper/tides.md (Tide Tables)\n`);
  expect(run.stderr).to.include(`failed    ${at}docs/empty.md: empty.md is empty (0 bytes)\n`);
  return summary;
}

describe("the people's CLI: archivist ingest, search, ask", function () {
  this.timeout(300_000);
  let folder: string;
  const word = `quobble${randomBytes(4).toString('hex')}`;

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'archivist-people-'));
    await writeLibrary(folder, word);
  });
  after(() => rm(folder, { recursive: true, force: true }));

  describe('against a running server (--url, ARCHIVIST_KEY)', () => {
    let app: TestApp;
    let env: Record<string, string | undefined>;
    let url: string;
    before(async () => {
      app = await startTestApp({ env: { API_KEYS: 'people-cli-key' } });
      url = (await app.server()).url;
      env = { ARCHIVIST_KEY: 'people-cli-key', ARCHIVIST_URL: undefined };
    });
    after(() => app.stop());
    const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
      runCliAsync(args, { ...env, ...extra }, { cwd: folder });

    it('ingests a folder with nested files and a glob: added, duplicate and failed, exit status 1', async () => {
      // One at a time: the guide is stored before its copy, so the searches below find it under its name.
      const run = await cli(['ingest', 'docs', 'extra/*.txt', '--url', url, '--json', '--concurrency', '1']);
      expectLibraryIngested(run);
    });

    it('finds the ingested text by search, with title, place, excerpt and document id', async () => {
      const run = await cli(['search', `${word} wick`, '--url', url, '--limit', '2']);
      expect(run.status, run.stderr).to.equal(0);
      const lines = run.stdout.split('\n');
      expect(lines[0]).to.match(
        /^1\. Lantern Maintenance {2}\(score \d\.\d{4}, p\. 1, Lantern Maintenance › Wicks\)$/,
      );
      expect(lines[1]).to.equal(
        `   # Lantern Maintenance ## Wicks Trim the ${word} wick every evening before lighting the lantern.`,
      );
      expect(lines[2]).to.match(/^ {3}doc [0-9a-f-]{36} {2}uploaded\/guide\.md$/);

      const json = await cli(['search', `${word} harbour`, '--url', url, '--json', '--limit', '1']);
      const found = JSON.parse(json.stdout) as { count: number; results: Array<Record<string, unknown>> };
      expect(found.count).to.equal(1);
      expect(found.results[0]).to.include({
        title: 'Tide Tables',
        source: 'uploaded/nested/deeper/tides.md', // its path below the ingested folder
        page_start: 1,
      });
    });

    it('answers a question with numbered citations, and says plainly when the documents do not hold it', async () => {
      const run = await cli(['ask', `When should the ${word} wick be trimmed?`, '--url', url]);
      expect(run.status, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/every evening.*\[1\]/);
      expect(run.stdout).to.include(
        '\nSources:\n[1] Lantern Maintenance (p. 1, Lantern Maintenance › Wicks)\n',
      );
      expect(run.stdout).to.include(
        `    "# Lantern Maintenance ## Wicks Trim the ${word} wick every evening before lighting the lantern."\n`,
      );

      const json = JSON.parse(
        (await cli(['ask', `When should the ${word} wick be trimmed?`, '--url', url, '--json'])).stdout,
      ) as {
        abstained: boolean;
        citations: Array<Record<string, unknown>>;
      };
      expect(json.abstained).to.equal(false);
      expect(json.citations[0]).to.include({
        number: 1,
        title: 'Lantern Maintenance',
        source: 'uploaded/guide.md',
      });

      const unanswered = await cli(['ask', 'Which chess opening did Kasparov prefer in 1985?', '--url', url]);
      expect(unanswered.status, unanswered.stderr).to.equal(0);
      expect(unanswered.stdout.split('\n')[0]).to.equal('The documents do not answer this question.');
    });

    it('exits 3 when nothing failed but something was already stored, 0 when all was added', async () => {
      const again = await cli(['ingest', 'docs/guide.md', '--url', url]);
      expect(again.status, again.stderr).to.equal(3);
      expect(again.stdout).to.match(
        /^0 added, 1 duplicate, 0 failed\.\nAlready stored:\n {2}docs\/guide\.md: .+\n$/,
      );

      await writeFile(join(folder, 'fresh.md'), `# Fresh\n\nA ${word} fresh page about kites.\n`);
      const fresh = await cli(['ingest', 'fresh.md', '--url', url]);
      expect(fresh.status, fresh.stderr).to.equal(0);
      expect(fresh.stdout).to.equal('1 added, 0 duplicates, 0 failed.\n');
    });

    it('exits 1 for an argument that names nothing, and 2 for a wrong command line or key', async () => {
      const nothing = await cli(['ingest', 'nowhere/*.md', 'missing.md', '--url', url, '--json']);
      expect(nothing.status).to.equal(1);
      expect(summaryOf(nothing).results).to.deep.equal([
        { input: 'nowhere/*.md', status: 'failed', reason: 'matches no files' },
        { input: 'missing.md', status: 'failed', reason: 'no such file or folder' },
      ]);

      const usage = await cli(['ingest', '--url', url]);
      expect(usage.status).to.equal(2);
      expect(usage.stderr).to.match(
        /^archivist: ingest needs at least one PATH or URL\n\nUsage:\n {2}ingest PATH\|URL…/,
      );
      const badLimit = await cli(['search', 'wick', '--limit', '0', '--url', url]);
      expect(badLimit.status).to.equal(2);
      expect(badLimit.stderr).to.include('--limit takes a whole number from 1 to 50; got 0');

      const wrongKey = await cli(['search', 'wick', '--url', url], { ARCHIVIST_KEY: 'not-the-key' });
      expect(wrongKey.status).to.equal(2);
      expect(wrongKey.stderr).to.equal(
        'archivist: search: 403 invalid_api_key: The API key in X-API-Key is not valid (check ARCHIVIST_KEY)\n',
      );
    });

    it('exits 2 when no server answers at the URL', async () => {
      const port = await freePort();
      const run = await cli(['ingest', 'docs/guide.md'], { ARCHIVIST_URL: `http://127.0.0.1:${port}` });
      expect(run.status).to.equal(2);
      expect(run.stderr).to.include(
        `archivist: cannot reach http://127.0.0.1:${port}/api/v1: ECONNREFUSED\n`,
      );
    });
  });

  describe('on the local DATA_DIR', () => {
    let dataDir: string;
    let env: Record<string, string | undefined>;
    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'archivist-people-data-'));
      env = { DATA_DIR: dataDir, ARCHIVIST_URL: undefined, ARCHIVIST_KEY: undefined };
    });
    after(() => rm(dataDir, { recursive: true, force: true }));
    // Run from the repository: from source, the runtime's worker threads load tsx from there.
    const cli = (args: string[]) => runCliAsync(args, env);

    it('ingests the folder and the glob, then finds and cites the text', async () => {
      const ingested = await cli([
        'ingest',
        join(folder, 'docs'),
        join(folder, 'extra/*.txt'),
        '--json',
        '--concurrency',
        '2',
      ]);
      expectLibraryIngested(ingested, `${folder}/`);

      const search = await cli(['search', `${word} ferry`, '--json', '--limit', '1']);
      expect(search.status, search.stderr).to.equal(0);
      const found = JSON.parse(search.stdout) as { results: Array<Record<string, unknown>> };
      expect(found.results[0]).to.include({ source: 'uploaded/alpha.txt' });
      expect(found.results[0]!['excerpt']).to.include('the ferry leaves at dawn');

      const ask = await cli(['ask', `When does the ${word} harbour flood?`]);
      expect(ask.status, ask.stderr).to.equal(0);
      expect(ask.stdout).to.match(/noon and at midnight.*\[1\]/);
      expect(ask.stdout).to.include('\nSources:\n[1] Tide Tables (p. 1, Tide Tables)\n');
    });

    it('refuses while a server holds the data folder, and points to --url (exit 2)', async () => {
      const server = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
        log: silentLogger,
      });
      try {
        const run = await cli(['search', 'wick']);
        expect(run.status).to.equal(2);
        expect(run.stderr).to.match(
          new RegExp(`^archivist: a server is running on DATA_DIR \\(${dataDir}\\); use --url`),
        );
      } finally {
        await server.stop();
      }
    });
  });
});
