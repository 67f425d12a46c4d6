/**
 * Entry point of a parse worker thread: runs `runParseJob` for the jobs it is sent and posts their
 * events back. Models (OCR, describer, summarizer) are built once per thread, on first use.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLocalDescriber } from '../describe/localDescriber.js';
import { createOpenAiDescriber } from '../describe/openAiDescriber.js';
import { ParseError, isParseError } from '../errors.js';
import { runParseJob, type ParseJobEvent, type ParseServices } from '../job.js';
import type { Image } from '../model.js';
import { createTesseractOcr } from '../ocr/tesseractOcr.js';
import { createExtractiveSummarizer } from '../summarize/extractive.js';
import { createOpenAiSummarizer } from '../summarize/openAi.js';
import { createFootprintTracker, heapFootprint } from './footprint.js';
import { fullCollection } from './fullCollection.js';
import { warmUpJob } from './warmUpDocument.js';
import type { FromWorker, ServicesConfig, ToWorker } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('parseWorker must run in a worker thread');
const config = workerData as ServicesConfig;

function createServices(): ParseServices {
  const ocr = createTesseractOcr({ workers: config.ocrWorkers });
  const local = createLocalDescriber({ ocr });
  const openai = config.openai;
  return {
    ocr,
    describer: openai?.visionModel
      ? createOpenAiDescriber({
          baseUrl: openai.baseUrl,
          apiKey: openai.apiKey,
          model: openai.visionModel,
          timeoutMs: openai.timeoutMs,
          fallback: local,
        })
      : local,
    summarizer: openai?.llmModel
      ? createOpenAiSummarizer({
          baseUrl: openai.baseUrl,
          apiKey: openai.apiKey,
          model: openai.llmModel,
          timeoutMs: openai.timeoutMs,
        })
      : createExtractiveSummarizer(),
  };
}

/**
 * Pictures' bytes stay in the worker: they have been described already, nothing on the main thread
 * reads them, and a document full of photos would otherwise be copied there whole.
 */
function withoutImageBytes(event: ParseJobEvent): ParseJobEvent {
  const strip = (image: Image): Image => (image.data ? { ...image, data: null } : image);
  if (event.type === 'chunk')
    return { ...event, chunk: { ...event.chunk, images: event.chunk.images.map(strip) } };
  if (event.type !== 'result') return event;
  const result = event.result;
  const blocks = result.document.blocks.map((block) =>
    block.type === 'image' ? { ...block, image: strip(block.image) } : block,
  );
  const document = { ...result.document, blocks };
  if ('chunks' in result) {
    const chunks = result.chunks.map((chunk) => ({ ...chunk, images: chunk.images.map(strip) }));
    return { type: 'result', result: { ...result, document, chunks } };
  }
  return { type: 'result', result: { ...result, document } };
}

async function warmUp(): Promise<void> {
  services ??= createServices();
  for await (const _ of runParseJob(warmUpJob(), services, new AbortController().signal)) {
    // Only the work matters.
  }
}

let services: ParseServices | null = null;
const running = new Map<number, AbortController>();
const post = (message: FromWorker): void => port.postMessage(message);

/** What this worker reports for the pool's recycling check, collecting once 32 MB may be garbage. */
const footprints = createFootprintTracker({
  collectAboveBytes: 32 * 1024 * 1024,
  measure: () => heapFootprint(),
  collect: () => fullCollection()?.(),
});

port.on('message', (message: ToWorker) => {
  if (message.type === 'abort') {
    const reason =
      message.reason === 'timeout' ? 'the time allowed for this document ran out' : 'the client went away';
    running.get(message.id)?.abort(new ParseError(message.reason, `Parsing stopped: ${reason}`));
    return;
  }
  if (message.type === 'warm') {
    // Load the parsers' heavy modules before the first request needs them, then parse one small
    // document: the footprint after that is the baseline recycling is judged against.
    void Promise.all([
      import('../pdf/pdfjs.js').then(({ loadPdfjs }) => loadPdfjs()),
      import('../pdf/index.js'),
      import('../office/index.js'),
      import('../text/index.js'),
      import('../chunk/index.js'),
      import('../clean/index.js'),
      import('../detect/detectFormat.js'),
    ])
      .then(warmUp)
      .catch(() => undefined)
      .finally(() => post({ type: 'warm', footprint: footprints.afterJob() }));
    return;
  }
  const { id, job } = message;
  const controller = new AbortController();
  running.set(id, controller);
  services ??= createServices();
  void (async () => {
    try {
      for await (const event of runParseJob(job, services!, controller.signal))
        post({ type: 'event', id, event: withoutImageBytes(event) });
      post({ type: 'end', id });
    } catch (error) {
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
      post({
        type: 'error',
        id,
        code: isParseError(reason) ? reason.code : null,
        message: reason instanceof Error ? reason.message : String(reason),
      });
    } finally {
      running.delete(id);
      post({ type: 'idle', footprint: footprints.afterJob() });
    }
  })();
});
