import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type {
  IngestOutcome,
  IngestStart,
  IngestUpdate,
  KnowledgeClient,
} from '../../src/cli/people/knowledgeClient.js';

/** The configuration both adapters' knowledge bases run with in the contract suite. */
export const CONTRACT_ENV = {
  // Small, so a fixture can be over it; every other fixture stays below.
  MAX_UPLOAD_BYTES: '1024',
  SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
};

export interface OpenedClient {
  client: KnowledgeClient;
  /** Stops what `open` started (the client is closed by the suite). */
  stop(): Promise<void>;
}

/** Follows an ingestion to its end: every update, and the outcome (the last update's). */
export async function followIngestion(
  client: KnowledgeClient,
  start: IngestStart,
): Promise<{ updates: IngestUpdate[]; outcome: IngestOutcome }> {
  if ('outcome' in start) return { updates: [], outcome: start.outcome };
  const updates: IngestUpdate[] = [];
  for await (const update of client.progress(start.taskId)) updates.push(update);
  const last = updates[updates.length - 1];
  if (last?.kind !== 'finished') throw new Error('the updates ended without an outcome');
  return { updates, outcome: last.outcome };
}

/**
 * What every KnowledgeClient adapter does, against the real product: `open` starts a knowledge base
 * configured with CONTRACT_ENV and answers a client of it.
 */
export function knowledgeClientContract(name: string, open: () => Promise<OpenedClient>): void {
  describe(`KnowledgeClient contract: ${name}`, function () {
    this.timeout(120_000);
    let opened: OpenedClient;
    let client: KnowledgeClient;
    let folder: string;
    let pages: Server;
    let pageBase: string;
    // Words of this run only: nothing stored before (a shared cluster) matches them.
    const word = `zorvex${randomBytes(4).toString('hex')}`;
    const guide = `# Lantern Maintenance\n\n## Wicks\n\nTrim the ${word} wick every evening before lighting the lantern.\n`;

    before(async () => {
      folder = await mkdtemp(join(tmpdir(), 'archivist-client-'));
      pages = createServer((request, response) => {
        if (request.url === '/tides')
          response
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              `<html><head><title>Tidal Gauges</title></head><body><article><h1>Tidal Gauges</h1><p>A ${word}tide gauge measures the height of the sea surface every six minutes.</p></article></body></html>`,
            );
        else response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
      pageBase = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
      opened = await open();
      client = opened.client;
    });
    after(async () => {
      await client?.close();
      await opened?.stop();
      await new Promise<void>((resolve) => pages.close(() => resolve()));
      await rm(folder, { recursive: true, force: true });
    });

    const file = async (fileName: string, content: string | Buffer): Promise<string> => {
      const path = join(folder, fileName);
      await writeFile(path, content);
      return path;
    };
    const ingest = async (fileName: string, content: string | Buffer) =>
      followIngestion(client, await client.ingestFile(await file(fileName, content), fileName, {}));

    let guideId = '';

    it('adds a file, reporting its stages, and finds it at once by search and by question', async () => {
      const { updates, outcome } = await ingest(`lanterns-${word}.md`, guide);
      expect(updates[0]).to.deep.equal({ kind: 'progress', fraction: 0, stage: 'queued' });
      expect(outcome).to.include({ status: 'added', title: 'Lantern Maintenance' });
      guideId = (outcome as { docId: string }).docId;
      expect(guideId).to.be.a('string').with.length.greaterThan(0);

      const results = await client.search(`${word} wick`, { limit: 3 });
      expect(results[0]).to.include({
        docId: guideId,
        title: 'Lantern Maintenance',
        source: `uploaded/lanterns-${word}.md`,
        section: 'uploaded',
        pageStart: 1,
        pageEnd: 1,
      });
      expect(results[0]!.excerpt).to.include(`Trim the ${word} wick`);
      expect(results[0]!.sectionPath).to.include('Wicks');
      expect(results[0]!.score).to.be.a('number');

      const answer = await client.ask(`When should the ${word} wick be trimmed?`, { limit: 3 });
      expect(answer.abstained).to.equal(false);
      expect(answer.answer).to.match(/every evening/);
      expect(answer.answer).to.match(/\[1\]/);
      expect(answer.citations[0]).to.include({ docId: guideId, title: 'Lantern Maintenance', pageStart: 1 });
      expect(answer.citations[0]!.excerpt).to.include('every evening');
    });

    it('says a question the documents do not answer is not answered', async () => {
      const answer = await client.ask('Which chess opening did Kasparov prefer in 1985?', { limit: 3 });
      expect(answer.abstained).to.equal(true);
      expect(answer.answer).to.equal('I could not find this in the documents.');
    });

    it('reports the same path or the same content again as a duplicate of the stored document', async () => {
      const samePath = await ingest(`lanterns-${word}.md`, `${guide}\nAnd polish the glass.\n`);
      expect(samePath.outcome).to.include({ status: 'duplicate', docId: guideId });
      const sameText = await ingest(`copy-of-lanterns-${word}.md`, guide);
      expect(sameText.outcome).to.include({
        status: 'duplicate',
        docId: guideId,
        title: 'Lantern Maintenance',
      });
      expect((sameText.outcome as { reason: string }).reason)
        .to.be.a('string')
        .with.length.greaterThan(0);
    });

    it('fails empty, binary, unsupported and oversized files with the reason', async () => {
      const empty = await ingest(`empty-${word}.md`, '');
      expect(empty.outcome).to.deep.equal({
        status: 'failed',
        reason: `empty-${word}.md is empty (0 bytes)`,
      });
      const garbage = await ingest(
        `garbage-${word}.txt`,
        Buffer.from(Array.from({ length: 500 }, (_, i) => (i * 7919) % 256)),
      );
      expect(garbage.outcome.status).to.equal('failed');
      expect((garbage.outcome as { reason: string }).reason).to.include('its bytes are binary data');
      const program = await ingest(`tool-${word}.exe`, 'MZ');
      expect(program.outcome.status).to.equal('failed');
      expect((program.outcome as { reason: string }).reason).to.include('Unsupported file type .exe');
      const large = await ingest(`large-${word}.md`, `# Large\n\n${'many words '.repeat(200)}`);
      expect(large.outcome.status).to.equal('failed');
      expect((large.outcome as { reason: string }).reason).to.include('larger than');
    });

    it('fails a file it cannot read with the reason', async () => {
      const start = await client.ingestFile(join(folder, `missing-${word}.md`), `missing-${word}.md`, {});
      expect(start).to.have.property('outcome');
      const outcome = (start as { outcome: IngestOutcome }).outcome;
      expect(outcome.status).to.equal('failed');
      expect((outcome as { reason: string }).reason).to.include('ENOENT');
    });

    it('adds a web page by URL', async () => {
      const { outcome } = await followIngestion(client, await client.ingestUrl(`${pageBase}/tides`, {}));
      expect(outcome).to.include({ status: 'added', title: 'Tidal Gauges' });
      const results = await client.search(`${word}tide sea surface`, { limit: 1 });
      expect(results[0]).to.include({
        docId: (outcome as { docId: string }).docId,
        source: `${pageBase}/tides`,
      });
    });

    it('fails a page that cannot be fetched with the reason', async () => {
      const { outcome } = await followIngestion(client, await client.ingestUrl(`${pageBase}/gone`, {}));
      expect(outcome.status).to.equal('failed');
      expect((outcome as { reason: string }).reason).to.include('404');
    });

    it('adds to a collection and searches only that collection when asked', async () => {
      const { outcome } = await followIngestion(
        client,
        await client.ingestFile(
          await file(`ledger-${word}.md`, `# Ledger\n\nThe ${word} wick budget is forty coins.\n`),
          `ledger-${word}.md`,
          { collection: 'accounts' },
        ),
      );
      expect(outcome).to.include({ status: 'added', title: 'Ledger' });
      const everywhere = await client.search(`${word} wick`, { limit: 5 });
      expect(everywhere.map((result) => result.title)).to.include.members(['Ledger', 'Lantern Maintenance']);
      const inAccounts = await client.search(`${word} wick`, { limit: 5, collection: 'accounts' });
      expect(inAccounts.map((result) => result.title)).to.deep.equal(['Ledger']);
    });
  });
}
