import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import type { AddressPolicy } from './addressPolicy.js';
import { isBlockedHostName } from './addressPolicy.js';

export type FetchErrorCode =
  | 'invalid_url'
  | 'blocked_address'
  | 'dns_failure'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'http_status'
  | 'unsupported_type'
  | 'connection_failed'
  | 'aborted';

export class FetchPageError extends Error {
  override readonly name = 'FetchPageError';
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  policy: AddressPolicy;
  userAgent: string;
  signal?: AbortSignal;
  /** Name resolution; the system resolver by default (tests inject one). */
  lookup?: typeof dnsLookup;
}

export interface FetchedPage {
  finalUrl: string;
  status: number;
  contentType: string;
  /** A file name whose extension tells the documents pipeline the format. */
  fileName: string;
  bytes: Buffer;
}

/** Content types the pipeline parses, with the extension each is parsed as. */
const TYPES: Record<string, string> = {
  'text/html': '.html',
  'application/xhtml+xml': '.html',
  'text/plain': '.txt',
  'text/markdown': '.md',
  'text/x-markdown': '.md',
  'text/x-rst': '.rst',
  'text/csv': '.csv',
  'application/json': '.json',
  'application/pdf': '.pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': '.pptx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': '.xlsx',
  'application/vnd.oasis.opendocument.text': '.odt',
  'application/vnd.oasis.opendocument.spreadsheet': '.ods',
  'application/vnd.oasis.opendocument.presentation': '.odp',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/tiff': '.tiff',
  'image/bmp': '.bmp',
};

/**
 * The connection's own name resolution: every address the name resolves to must be allowed, and the
 * socket connects to one of those very addresses — so a DNS answer that changes between a check
 * and the connection (rebinding) cannot smuggle in a private address.
 */
function guardedLookup(policy: AddressPolicy, resolve: typeof dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowedByName = policy.allowsHost(hostname);
      const refused = allowedByName
        ? null
        : addresses.map((entry) => policy.refusal(entry.address)).find(Boolean);
      if (refused || addresses.length === 0) {
        const blocked = new FetchPageError(
          'blocked_address',
          `${hostname} resolves to ${refused ?? 'no address'}`,
        );
        return callback(blocked as NodeJS.ErrnoException, '', 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function checkUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchPageError('invalid_url', `Not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchPageError('invalid_url', `Only http and https URLs can be scraped, not ${url.protocol}`);
  }
  if (url.username || url.password)
    throw new FetchPageError('invalid_url', 'URLs with credentials are refused');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy.allowsHost(host)) {
    // A literal address is connected to without any lookup: check it here.
    if (isIP(host) !== 0) {
      const refused = policy.refusal(host);
      if (refused) throw new FetchPageError('blocked_address', `Refused: ${refused}`);
    } else if (isBlockedHostName(host)) {
      throw new FetchPageError(
        'blocked_address',
        `Refused: ${host} names this machine or a metadata service`,
      );
    }
  }
  return url;
}

function fileNameFor(url: URL, extension: string): string {
  const last = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? '').replace(
    /[^\p{L}\p{N}._-]+/gu,
    '_',
  );
  const base = (last.replace(/\.[A-Za-z0-9]{1,5}$/, '') || url.hostname).slice(0, 100);
  return `${base}${extension}`;
}

function translate(
  error: unknown,
  signals: { timeout: AbortSignal; any: AbortSignal },
  timeoutMs: number,
  host: string,
): FetchPageError {
  if (error instanceof FetchPageError) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof FetchPageError) return cause;
  const code = (error as { code?: string }).code ?? '';
  if (signals.timeout.aborted)
    return new FetchPageError('timeout', `${host} did not answer in full within ${timeoutMs / 1000} s`);
  if (signals.any.aborted) return new FetchPageError('aborted', 'The request was cancelled');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new FetchPageError('dns_failure', `Cannot resolve ${host}`);
  if (/TIMEOUT/i.test(code))
    return new FetchPageError('timeout', `No answer from ${host} within ${timeoutMs / 1000} s`);
  return new FetchPageError('connection_failed', `Cannot fetch from ${host}: ${(error as Error).message}`);
}

/**
 * Fetches one page for ingestion, safely: http(s) only, no private addresses (checked on the
 * connection's own DNS answer and again on every redirect hop), redirects capped, a time limit on
 * the whole fetch, a size cap enforced while reading, no compressed transfer (no decompression bombs),
 * and only content types the documents pipeline parses.
 */
export async function fetchPage(raw: string, options: FetchOptions): Promise<FetchedPage> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  // Loaded on the first scrape: undici costs a tenth of a second at every start-up otherwise.
  const { Agent, request } = await import('undici');
  const dispatcher: Dispatcher = new Agent({
    connect: {
      lookup: guardedLookup(options.policy, options.lookup ?? dnsLookup),
      timeout: options.timeoutMs,
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  let url = checkUrl(raw, options.policy);
  try {
    for (let hop = 0; ; hop += 1) {
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, {
          dispatcher,
          method: 'GET',
          signal,
          headers: { 'user-agent': options.userAgent, accept: '*/*', 'accept-encoding': 'identity' },
        });
      } catch (error) {
        throw translate(error, { timeout, any: signal }, options.timeoutMs, url.hostname);
      }
      const { statusCode, headers, body } = response;
      if (statusCode >= 300 && statusCode < 400 && headers['location']) {
        await body.dump();
        if (hop >= options.maxRedirects) {
          throw new FetchPageError('too_many_redirects', `More than ${options.maxRedirects} redirects`);
        }
        url = checkUrl(new URL(String(headers['location']), url).toString(), options.policy);
        continue;
      }
      if (statusCode < 200 || statusCode >= 300) {
        await body.dump();
        throw new FetchPageError('http_status', `The server answered HTTP ${statusCode}`);
      }
      const contentType = String(headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      const extension = TYPES[contentType];
      if (!extension) {
        await body.dump();
        throw new FetchPageError(
          'unsupported_type',
          `Content type ${contentType || '(none)'} cannot be ingested`,
        );
      }
      const declared = Number(headers['content-length'] ?? Number.NaN);
      if (declared > options.maxBytes) {
        await body.dump();
        throw new FetchPageError(
          'too_large',
          `The page is ${declared} bytes; the limit is ${options.maxBytes}`,
        );
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of body) {
          size += (chunk as Buffer).length;
          if (size > options.maxBytes) {
            body.destroy();
            throw new FetchPageError(
              'too_large',
              `The page is larger than the limit of ${options.maxBytes} bytes`,
            );
          }
          chunks.push(chunk as Buffer);
        }
      } catch (error) {
        throw translate(error, { timeout, any: signal }, options.timeoutMs, url.hostname);
      }
      return {
        finalUrl: url.toString(),
        status: statusCode,
        contentType,
        fileName: fileNameFor(url, extension),
        bytes: Buffer.concat(chunks),
      };
    }
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}
