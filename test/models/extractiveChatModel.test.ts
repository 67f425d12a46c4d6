import { expect } from 'chai';
import type { ChatRequest, ChatStreamEvent } from '../../src/models/chatModel.js';
import { createExtractiveChatModel } from '../../src/models/extractiveChatModel.js';
import { isAbstention, NOT_FOUND_ANSWER } from '../../src/models/groundedPrompt.js';
import { GROUNDED_SYSTEM_PROMPT, groundedUserMessage } from '../../src/models/groundedPrompt.js';
import { ModelError } from '../../src/models/modelError.js';
import { expectRejection } from '../support/expectRejection.js';

const question: ChatRequest = {
  messages: [
    { role: 'system', content: GROUNDED_SYSTEM_PROMPT },
    {
      role: 'user',
      content: groundedUserMessage('When does the library open on Saturdays?', [
        { title: 'Parking', text: 'The car park closes at midnight. Bicycles go in the courtyard.' },
        { title: 'Opening hours', text: 'On Saturdays the library opens at 10:00. It closes at 16:00.' },
      ]),
    },
  ],
};

describe('local extractive chat model', () => {
  const model = createExtractiveChatModel();

  it('answers by quoting the relevant source sentence with its number', async () => {
    const completion = await model.complete(question);
    expect(completion.content).to.equal('On Saturdays the library opens at 10:00. [2]');
    expect(completion).to.include({ finishReason: 'stop' });
    expect(completion.toolCalls).to.deep.equal([]);
    expect(completion.usage.total).to.equal(completion.usage.input + completion.usage.output);
  });

  it('says so when no source is relevant', async () => {
    const completion = await model.complete({ messages: [{ role: 'user', content: 'Hello?' }] });
    expect(completion.content).to.equal(NOT_FOUND_ANSWER);
  });

  it('streams the same answer in pieces, then the completion', async () => {
    const events: ChatStreamEvent[] = [];
    for await (const event of model.stream(question)) events.push(event);
    const deltas = events.filter((event) => event.type === 'delta');
    expect(deltas.length).to.be.greaterThan(3);
    expect(deltas.map((event) => event.content).join('')).to.equal(
      'On Saturdays the library opens at 10:00. [2]',
    );
    expect(events.at(-1)).to.deep.equal({ type: 'done', completion: await model.complete(question) });
  });

  it('refuses what it cannot do rather than pretend: JSON schemas and forced tool calls', async () => {
    const schema = { name: 'answer', schema: { type: 'object' } };
    const json = await expectRejection(model.complete({ ...question, responseFormat: schema }), ModelError);
    expect(json.code).to.equal('unsupported');
    const forced = await expectRejection(
      model.complete({
        ...question,
        tools: [{ name: 'search', description: 'Search', parameters: { type: 'object' } }],
        toolChoice: 'required',
      }),
      ModelError,
    );
    expect(forced.code).to.equal('unsupported');
    // With tools on offer but not forced, it answers without calling one, as a model may.
    const offered = await model.complete({
      ...question,
      tools: [{ name: 'search', description: 'Search', parameters: { type: 'object' } }],
    });
    expect(offered.toolCalls).to.deep.equal([]);
  });

  it('stops streaming when aborted', async () => {
    const controller = new AbortController();
    const events: ChatStreamEvent[] = [];
    let error: unknown = null;
    try {
      for await (const event of model.stream({ ...question, signal: controller.signal })) {
        events.push(event);
        controller.abort();
      }
    } catch (caught) {
      error = caught;
    }
    expect(events).to.have.length(1);
    expect((error as Error).name).to.equal('AbortError');
  });

  it('tells an abstention from an answer, in English and Arabic, whatever the wording', () => {
    for (const refusal of [
      NOT_FOUND_ANSWER,
      "I couldn't find the answer in the sources.",
      'The documents do not mention a release date.',
      'لم أجد الإجابة في المستندات.',
      '',
    ]) {
      expect(isAbstention(refusal), refusal).to.equal(true);
    }
    for (const answer of [
      'Koa requires node v18.0.0 or higher [1].',
      'I could not find a date, but the version is 2.1 [2].',
      'Install it with npm install pino.',
    ]) {
      expect(isAbstention(answer), answer).to.equal(false);
    }
  });

  describe('choosing what answers', () => {
    const ask = async (text: string, passages: Array<{ title: string; text: string }>) =>
      (
        await model.complete({
          messages: [
            { role: 'system', content: GROUNDED_SYSTEM_PROMPT },
            { role: 'user', content: groundedUserMessage(text, passages) },
          ],
        })
      ).content;
    const validator = {
      title: 'Validator',
      text: [
        '- supports browsers and Node.js 18.x',
        '- validates schemas against meta-schema',
        'const v = require("validator");',
        '// Node.js require:',
      ].join('\n'),
    };
    const framework = {
      title: 'Framework',
      text: [
        '## Installation',
        'Framework requires node v18.0.0 or higher for async function support.',
        'Using npm:',
        '$ npm install framework',
        'Framework is a small HTTP middleware framework.',
        'Many people contributed to Framework over the years.',
      ].join('\n'),
    };

    it('answers a version question with the line that names the version, not a list line or code', async () => {
      expect(await ask('What Node.js version does Framework require?', [validator, framework])).to.equal(
        'Framework requires node v18.0.0 or higher for async function support. [2]',
      );
    });

    it('answers how to install with the command, from the line after its introduction', async () => {
      expect(await ask('How do I install framework?', [validator, framework])).to.include(
        '$ npm install framework [2]',
      );
    });

    it('answers what something is with the sentence that says what it is', async () => {
      expect(await ask('What is Framework?', [framework])).to.equal(
        'Framework is a small HTTP middleware framework. [1]',
      );
    });

    it('abstains on a question whose words the sources do not hold, and on one with no words', async () => {
      expect(await ask('What is the capital of France?', [validator, framework])).to.equal(NOT_FOUND_ANSWER);
      expect(await ask('x', [validator, framework])).to.equal(NOT_FOUND_ANSWER);
    });

    it('abstains on a question about a name no source mentions, however well its other words match', async () => {
      const images = {
        title: 'Images',
        text: 'The difference between an image and a container is that an image is kept on disk.',
      };
      // The sources explain images and containers, but of nothing called Docker.
      expect(await ask('What is the difference between a Docker image and a container?', [images])).to.equal(
        NOT_FOUND_ANSWER,
      );
      const docker = { ...images, text: `In Docker, ${images.text}` };
      expect(await ask('What is the difference between a Docker image and a container?', [docker])).to.equal(
        `${docker.text} [1]`,
      );
    });
  });
});
