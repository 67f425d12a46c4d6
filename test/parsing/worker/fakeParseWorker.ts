/**
 * A stand-in for the parse worker that speaks its protocol but parses nothing, so pool tests decide
 * when each job ends. A job named `hold-…` stays running until the test posts its name on the
 * `fake-parse-worker` broadcast channel (before or after the job arrives); a job named `fail-…` fails;
 * any other job ends at once. Every job first reports the
 * worker's thread id (as its metadata title) so a test can tell threads apart. The footprint a job
 * reports is the number after `footprint-` in its name (0 otherwise); a warm worker reports 0.
 */
import { BroadcastChannel, parentPort, threadId } from 'node:worker_threads';
import type { ParseJob } from '../../../src/parsing/job.js';
import type { FromWorker, ToWorker } from '../../../src/parsing/worker/protocol.js';

const port = parentPort;
if (!port) throw new Error('fakeParseWorker must run in a worker thread');
const post = (message: FromWorker): void => port.postMessage(message);
const held = new Map<string, number>();
const control = new BroadcastChannel('fake-parse-worker');
control.unref();

function footprintOf(job: ParseJob): number {
  return Number(/footprint-(\d+)/.exec(job.fileName)?.[1] ?? 0);
}

const jobs = new Map<number, ParseJob>();

function end(id: number): void {
  const job = jobs.get(id);
  if (!job) return;
  jobs.delete(id);
  post({ type: 'end', id });
  post({ type: 'idle', footprint: footprintOf(job) });
}

/** Releases that arrived before their job did (the two travel on different channels). */
const early = new Set<string>();

control.onmessage = (message: unknown) => {
  const name = String((message as { data: unknown }).data);
  const id = held.get(name);
  if (id === undefined) {
    early.add(name);
    return;
  }
  held.delete(name);
  end(id);
};

port.on('message', (message: ToWorker) => {
  if (message.type === 'warm') {
    post({ type: 'warm', footprint: 0 });
    return;
  }
  if (message.type === 'abort') {
    const job = jobs.get(message.id);
    if (!job) return;
    jobs.delete(message.id);
    held.delete(job.fileName);
    post({ type: 'error', id: message.id, code: message.reason, message: 'stopped' });
    post({ type: 'idle', footprint: 0 });
    return;
  }
  const { id, job } = message;
  jobs.set(id, job);
  post({
    type: 'event',
    id,
    event: {
      type: 'metadata',
      format: '.txt',
      metadata: { title: `thread ${threadId}`, author: null, numPages: 1, language: null, extra: {} },
      totalPages: 1,
    },
  });
  if (job.fileName.startsWith('fail-')) {
    jobs.delete(id);
    post({ type: 'error', id, code: 'corrupt_document', message: 'the test says it is broken' });
    post({ type: 'idle', footprint: 0 });
  } else if (job.fileName.startsWith('hold-') && !early.delete(job.fileName)) held.set(job.fileName, id);
  else end(id);
});
