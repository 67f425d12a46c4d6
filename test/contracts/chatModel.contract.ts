import { expect } from 'chai';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../src/models/chatModel.js';
import { GROUNDED_SYSTEM_PROMPT, groundedUserMessage } from '../../src/models/groundedPrompt.js';

/** The grounded question every answer path asks (see src/knowledge/answer.ts). */
const question: ChatRequest = {
  messages: [
    { role: 'system', content: GROUNDED_SYSTEM_PROMPT },
    {
      role: 'user',
      content: groundedUserMessage('When does the library open on Saturdays?', [
        { title: 'Opening hours', text: 'On Saturdays the library opens at 10:00 and closes at 16:00.' },
      ]),
    },
  ],
  temperature: 0,
  maxTokens: 24,
};

/**
 * What every ChatModel adapter must do, whatever the quality of its answers. `chatModel` is called
 * in a `before` hook (so a suite can skip itself there) and its result shared by the tests; few and
 * short requests, since a real model answers slowly on CI machines.
 */
export function chatModelContract(
  name: string,
  chatModel: (context: Mocha.Context) => ChatModel | Promise<ChatModel>,
): void {
  describe(`ChatModel contract: ${name}`, function () {
    this.timeout(120_000);
    let model: ChatModel;
    before(async function () {
      model = await chatModel(this);
    });

    it('answers with text, a finish reason and a consistent token usage', async () => {
      const completion = await model.complete(question);
      expect(completion.content.trim()).to.not.equal('');
      expect(completion.finishReason).to.be.oneOf(['stop', 'length']);
      expect(completion.toolCalls).to.deep.equal([]);
      expect(completion.usage.input).to.be.greaterThan(0);
      expect(completion.usage.output).to.be.within(1, 24);
      expect(completion.usage.total).to.equal(completion.usage.input + completion.usage.output);
    });

    it('streams deltas that add up to the answer, then exactly one done, last', async () => {
      const events: ChatStreamEvent[] = [];
      for await (const event of model.stream(question)) events.push(event);
      const done = events.filter((event) => event.type === 'done');
      expect(done).to.have.length(1);
      expect(events.at(-1)).to.equal(done[0]);
      const deltas = events.flatMap((event) => (event.type === 'delta' ? [event.content] : []));
      expect(deltas.length).to.be.greaterThan(1);
      if (done[0]?.type === 'done') expect(deltas.join('')).to.equal(done[0].completion.content);
    });

    it('stops at max tokens and says so with finish reason length', async () => {
      const completion = await model.complete({ ...question, maxTokens: 3 });
      expect(completion.finishReason).to.equal('length');
      expect(completion.usage.output).to.be.within(1, 3);
    });

    it('refuses to work for a caller that has given up', async () => {
      let failed = false;
      await model.complete({ ...question, signal: AbortSignal.abort() }).catch(() => {
        failed = true;
      });
      expect(failed).to.equal(true);
    });

    it('is ready', async () => {
      expect((await model.probe()).healthy).to.equal(true);
    });
  });
}
