/**
 * The open-loop client in a process of its own, so that the benchmark's own pauses (its heap holds
 * the corpus) are not counted as the server's: reads `openLoop`'s options as JSON on stdin and
 * writes its result (`latencies`, `rate`, `worstBySecond`) as JSON on stdout.
 */
import { openLoop } from './load.js';

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const options = JSON.parse(input) as Parameters<typeof openLoop>[0];
process.stdout.write(JSON.stringify(await openLoop(options)));
