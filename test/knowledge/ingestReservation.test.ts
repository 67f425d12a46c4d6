import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { metadataFor } from '../../src/commands/context.js';
import { createReadStoreEmbeddingCache } from '../../src/knowledge/embeddingCache.js';
import { createIngestor } from '../../src/knowledge/ingest.js';
import type { Embedder } from '../../src/models/embedder.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/**
 * Issue 26: the next large document's parse started while earlier ones were still being embedded
 * and recorded, so three uploads at once held three documents' memory. An ingestion now keeps its
 * parse's memory reservation until its document is stored.
 */
describe('ingestion memory', function () {
  this.timeout(30_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.stop());

  function ingestorSeeing(reserved: number[], failEmbedding = false) {
    const real = app.runtime.knowledge.embedder;
    const embedder: Embedder = {
      name: real.name,
      space: real.space,
      dimensions: real.dimensions,
      maxBatch: real.maxBatch,
      probe: () => real.probe(),
      embed(texts, options) {
        reserved.push(app.runtime.parser.stats().reservedBytes);
        if (failEmbedding) return Promise.reject(new Error('the embedding model is down'));
        return real.embed(texts, options);
      },
    };
    return createIngestor({
      parser: app.runtime.parser,
      documents: app.runtime.knowledge.documents,
      eventStore: app.runtime.eventStore,
      embedder,
      embeddings: createReadStoreEmbeddingCache(app.runtime.readStore),
      maxInputBytes: 10_000_000,
      newId: randomUUID,
      metadata: (who) => metadataFor(who, () => new Date()),
      clock: () => new Date(),
    });
  }
  const input = (text: string) => ({
    fileName: 'notes.md',
    bytes: Buffer.from(text),
    source: `general/${randomUUID()}.md`,
    sourceKind: 'upload' as const,
    section: 'general',
    skipDuplicates: true,
    caller: { actorId: 'tester', correlationId: 'c' },
    signal: AbortSignal.timeout(20_000),
  });

  it('holds its parse reservation while it embeds, and gives it back once the document is stored', async () => {
    const reserved: number[] = [];
    const outcome = await ingestorSeeing(reserved)(
      input(`# Gauges ${randomUUID()}\n\nThe river gauges are read each morning.`),
    );
    expect(outcome).to.include({ success: true });
    expect(reserved.length).to.be.greaterThan(0);
    expect(Math.min(...reserved)).to.be.greaterThan(0);
    expect(app.runtime.parser.stats().reservedBytes).to.equal(0);
  });

  it('gives it back when the ingestion fails after the parse', async () => {
    const reserved: number[] = [];
    const failed = ingestorSeeing(
      reserved,
      true,
    )(input(`# Weirs ${randomUUID()}\n\nThe weir is checked after each flood.`));
    await failed.then(
      () => expect.fail('the embedding failure should reach the caller'),
      (error: Error) => expect(error.message).to.equal('the embedding model is down'),
    );
    expect(reserved[0]).to.be.greaterThan(0);
    expect(app.runtime.parser.stats().reservedBytes).to.equal(0);
  });
});
