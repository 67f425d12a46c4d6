/**
 * A preload (`node --import <networkGuardImport()>`) that traps every way to the network: fetch,
 * http/https requests, TCP sockets and DNS. Each attempt is reported on stderr with the marker
 * NETWORK-ATTEMPT and fails. Worker threads inherit the parent's execArgv, so the tesseract.js worker
 * threads are trapped too.
 *
 * It is plain JavaScript in a `data:` URL because the worker threads load it without the TypeScript
 * loader the test process runs with.
 */
const source = `
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isMainThread } from 'node:worker_threads';

const where = isMainThread ? 'main thread' : 'worker thread';
const describe = (target) =>
  target instanceof URL ? target.href : typeof target === 'string' ? target : JSON.stringify(target);
const attempt = (what) => {
  process.stderr.write('NETWORK-ATTEMPT ' + what + ' (' + where + ')\\n');
  return new Error('network access is disabled in this test: ' + what);
};

globalThis.fetch = async (input) => {
  throw attempt('fetch ' + (input instanceof Request ? input.url : describe(input)));
};
for (const client of [http, https]) {
  client.request = (target) => { throw attempt('request ' + describe(target)); };
  client.get = client.request;
}
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const target = args[0];
  if (typeof target === 'object' && target !== null && 'path' in target) return connect.apply(this, args);
  throw attempt('socket ' + describe(target));
};
dns.lookup = (hostname) => { throw attempt('dns ' + describe(hostname)); };
process.stderr.write('network guard active (' + where + ')\\n');
`;

export function networkGuardImport(): string {
  return `data:text/javascript,${encodeURIComponent(source)}`;
}
