/**
 * Entry point of a parse worker thread: runs `runParseJob` for the jobs it is sent and posts their
 * events back. Models (OCR, describer, summarizer) are built once per thread, on first use.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLocalDescriber } from '../describe/localDescriber.js';
import { createOpenAiDescriber } from '../describe/openAiDescriber.js';
import { ParseError, isParseError } from '../errors.js';
import { runParseJob, type ParseServices } from '../job.js';
import { createTesseractOcr } from '../ocr/tesseractOcr.js';
import { createExtractiveSummarizer } from '../summarize/extractive.js';
import { createOpenAiSummarizer } from '../summarize/openAi.js';
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

let services: ParseServices | null = null;
const running = new Map<number, AbortController>();
const post = (message: FromWorker): void => port.postMessage(message);

port.on('message', (message: ToWorker) => {
  if (message.type === 'abort') {
    const reason =
      message.reason === 'timeout' ? 'the time allowed for this document ran out' : 'the client went away';
    running.get(message.id)?.abort(new ParseError(message.reason, `Parsing stopped: ${reason}`));
    return;
  }
  if (message.type === 'warm') {
    // Load the parsers' heavy modules before the first request needs them.
    void Promise.all([
      import('../pdf/pdfjs.js').then(({ loadPdfjs }) => loadPdfjs()),
      import('../pdf/index.js'),
      import('../office/index.js'),
      import('../text/index.js'),
      import('../chunk/index.js'),
      import('../clean/index.js'),
      import('../detect/detectFormat.js'),
    ]).finally(() => post({ type: 'warm' }));
    return;
  }
  const { id, job } = message;
  const controller = new AbortController();
  running.set(id, controller);
  services ??= createServices();
  void (async () => {
    try {
      for await (const event of runParseJob(job, services!, controller.signal))
        post({ type: 'event', id, event });
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
    }
  })();
});
