import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createRuntime } from '../../src/runtime.js';
import { startOpenAiCompatibleServer } from '../support/openaiCompatibleServer.js';
import { sleep } from '../support/eventually.js';

describe('a chat turn and the conversation read models', function () {
  this.timeout(30_000);

  it('reads the history once the read models hold the turn: started while they stand still, it answers when they move', async () => {
    const model = await startOpenAiCompatibleServer({ respond: () => ({ content: 'Hello there.' }) });
    const dataDir = await mkdtemp(join(tmpdir(), 'archivist-turn-history-'));
    const runtime = await createRuntime(
      loadConfig({
        DATA_DIR: dataDir,
        EVENT_STORE: 'memory',
        LOG_LEVEL: 'silent',
        PORT: '0',
        OPENAI_BASE_URL: model.baseUrl,
        LLM_MODEL: 'scripted',
        READ_YOUR_WRITES_TIMEOUT_MS: '10000',
      }),
      { log: silentLogger, jobs: [] },
    );
    try {
      // No projector role yet: the conversation read models stand still, as when the projector is
      // another process that has not applied the turn's user message yet.
      await runtime.start(['api', 'worker']);
      const turn = await runtime.chat.start({
        owner: 'user:alice',
        caller: { actorId: 'user:alice', correlationId: 'turn-history' },
        conversationId: null,
        message: 'Hello?',
        autoExecuteTools: true,
        systemPrompt: null,
        maxTokens: null,
      });
      await sleep(300);
      expect(turn.ended, 'the turn waits for the read models').to.equal(false);
      await runtime.projections.start();
      await turn.finished();
      expect(turn.events.at(-1)?.event).to.equal('done');
      const completions = model.requests.filter((request) => request.path.endsWith('/chat/completions'));
      expect(completions).to.have.length(1);
    } finally {
      await runtime.stop();
      await model.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
