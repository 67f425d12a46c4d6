import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import type { AllStreamResolvedEvent } from '@eventstore/db-client';
import {
  ANY,
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamDeletedError as EsdbStreamDeletedError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
} from '@eventstore/db-client';
import { silentLogger } from '../../src/log.js';
import type { EsdbSubscription } from '../../src/eventStore/esdbClient.js';
import {
  createScavengeScheduler,
  scavengeTargetFrom,
  startScavenge,
} from '../../src/eventStore/esdbScavenge.js';
import { readBatches } from '../../src/eventStore/esdbSubscription.js';
import {
  fromExpectedRevision,
  fromResolved,
  metadataEventData,
  numberToPosition,
  portMetadataFrom,
  positionToNumber,
  readAllFrom,
  revisionFromVersion,
  serverFilterFor,
  subscribeAllFrom,
  subscribeStreamFrom,
  toEsdbEventId,
  toEventData,
  toExpectedRevision,
  translateError,
  versionFromCurrentRevision,
  versionFromRevision,
} from '../../src/eventStore/esdbTranslate.js';
import { createStreamVisibility } from '../../src/eventStore/esdbVisibility.js';
import {
  EventStoreUnavailableError,
  StreamDeletedError,
  WrongExpectedVersionError,
} from '../../src/eventStore/eventStore.js';

const metadata = { now: '2026-11-22T10:00:00.000Z', actorId: 'tester', correlationId: 'corr-1' };

function resolved(fields: {
  stream: string;
  type: string;
  revision?: bigint;
  position?: bigint;
  data?: unknown;
  metadata?: unknown;
  id?: string;
}): AllStreamResolvedEvent {
  const position = fields.position ?? 5000n;
  return {
    event: {
      streamId: fields.stream,
      id: fields.id ?? '0b6d8f0e-8f63-4f5a-9d37-5e1c2b7a9e10',
      isJson: true,
      revision: fields.revision ?? 0n,
      type: fields.type,
      created: new Date('2026-11-22T10:00:01.000Z'),
      data: (fields.data ?? {}) as Record<string, unknown>,
      metadata: fields.metadata as Record<string, unknown> | undefined,
      position: { commit: position, prepare: position },
    },
    commitPosition: position,
  } as AllStreamResolvedEvent;
}

describe('EventStoreDB translation', () => {
  it('maps 0-based revisions to 1-based versions and back', () => {
    expect(versionFromRevision(0n)).to.equal(1);
    expect(versionFromRevision(41n)).to.equal(42);
    expect(revisionFromVersion(1)).to.equal(0n);
    expect(revisionFromVersion(42)).to.equal(41n);
    expect(() => revisionFromVersion(0)).to.throw(RangeError);
    expect(() => versionFromRevision(9223372036854775807n)).to.throw(RangeError);
    expect(versionFromCurrentRevision(NO_STREAM)).to.equal(0);
    expect(versionFromCurrentRevision(-1n)).to.equal(0);
    expect(versionFromCurrentRevision(4n)).to.equal(5);
  });

  it('maps expected versions both ways', () => {
    expect(toExpectedRevision('any')).to.equal(ANY);
    expect(toExpectedRevision('no_stream')).to.equal(NO_STREAM);
    expect(toExpectedRevision(0)).to.equal(NO_STREAM);
    expect(toExpectedRevision('stream_exists')).to.equal(STREAM_EXISTS);
    expect(toExpectedRevision(3)).to.equal(2n);
    expect(() => toExpectedRevision(-1)).to.throw(RangeError);
    expect(() => toExpectedRevision(1.5)).to.throw(RangeError);
    expect(fromExpectedRevision(ANY)).to.equal('any');
    expect(fromExpectedRevision(NO_STREAM)).to.equal('no_stream');
    expect(fromExpectedRevision(STREAM_EXISTS)).to.equal('stream_exists');
    expect(fromExpectedRevision(2n)).to.equal(3);
  });

  it('maps positions to one number and rebuilds them to resume', () => {
    expect(positionToNumber({ commit: 123456n, prepare: 123456n })).to.equal(123456);
    expect(numberToPosition(123456)).to.deep.equal({ commit: 123456n, prepare: 123456n });
    // Old servers give stream reads no position, or 2^64-1: refused with the version needed.
    expect(() => positionToNumber(undefined)).to.throw(/22\.10/);
    expect(() =>
      positionToNumber({ commit: 18446744073709551615n, prepare: 18446744073709551615n }),
    ).to.throw(/22\.10/);
    // 0 is "before the first event"; otherwise the position itself (the read drops it, the
    // subscription starts after it); stream subscriptions start after the previous revision.
    expect(readAllFrom(0)).to.equal(START);
    expect(readAllFrom(2048)).to.deep.equal({ commit: 2048n, prepare: 2048n });
    expect(subscribeAllFrom(0)).to.equal(START);
    expect(subscribeAllFrom(2048)).to.deep.equal({ commit: 2048n, prepare: 2048n });
    expect(subscribeStreamFrom(1)).to.equal(START);
    expect(subscribeStreamFrom(2)).to.equal(0n);
    expect(subscribeStreamFrom(5)).to.equal(3n);
  });

  it('gives every event a UUID and keeps a caller id that is not one', () => {
    const uuid = '0b6d8f0e-8f63-4f5a-9d37-5e1c2b7a9e10';
    expect(toEsdbEventId(uuid)).to.deep.equal({ uuid, original: null });
    const generated = toEsdbEventId(undefined);
    expect(generated.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const named = toEsdbEventId('task-7-started');
    expect(named.original).to.equal('task-7-started');
    expect(named.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(toEsdbEventId('task-7-started').uuid).to.equal(named.uuid);
    expect(toEsdbEventId(uuid.toUpperCase()).original).to.equal(uuid.toUpperCase());

    const data = toEventData({ id: 'task-7-started', type: 'TaskStarted', data: { a: 1 }, metadata });
    expect(data).to.deep.include({ id: named.uuid, type: 'TaskStarted', contentType: 'application/json' });
    const back = fromResolved(
      resolved({
        stream: 'task-7',
        type: 'TaskStarted',
        data: data.data,
        metadata: data.metadata,
        id: data.id,
      }),
    );
    expect(back).to.deep.include({ id: 'task-7-started', data: { a: 1 }, metadata });
  });

  it('turns a resolved event into the port event, and skips system events', () => {
    expect(
      fromResolved(
        resolved({ stream: 'task-1', type: 'TaskCreated', revision: 2n, position: 9000n, metadata }),
      ),
    ).to.deep.equal({
      id: '0b6d8f0e-8f63-4f5a-9d37-5e1c2b7a9e10',
      type: 'TaskCreated',
      data: {},
      metadata,
      streamName: 'task-1',
      streamVersion: 3,
      position: 9000,
      recordedAt: '2026-11-22T10:00:01.000Z',
    });
    expect(fromResolved(resolved({ stream: '$$task-1', type: '$metadata' }))).to.equal(null);
    expect(fromResolved(resolved({ stream: 'task-1', type: '$streamDeleted' }))).to.equal(null);
    expect(fromResolved(resolved({ stream: '$ce-task', type: '$>' }))).to.equal(null);
    expect(fromResolved(resolved({ stream: '$stats-node', type: 'StatsCollected' }))).to.equal(null);
    expect(fromResolved({} as AllStreamResolvedEvent)).to.equal(null);
    // Foreign payloads: binary JSON is parsed, anything else is kept under `value`.
    const binary = new TextEncoder().encode('{"x":1}');
    expect(fromResolved(resolved({ stream: 's', type: 'T', data: binary }))?.data).to.deep.equal({ x: 1 });
    expect(fromResolved(resolved({ stream: 's', type: 'T', data: 'text' }))?.data).to.deep.equal({
      value: 'text',
    });
  });

  it('builds the server-side filter from the port filter', () => {
    expect(serverFilterFor(undefined)).to.deep.include({ filterOn: 'eventType', regex: '^[^$].*' });
    const types = serverFilterFor({ eventTypes: ['Task.Created', 'C+'] });
    expect(types).to.deep.include({ filterOn: 'eventType', regex: '^(?:Task\\.Created|C\\+)$' });
    const regex = new RegExp((types as { regex: string }).regex);
    expect(
      ['Task.Created', 'C+', 'TaskxCreated', 'Task.Created2', 'CC'].map((t) => regex.test(t)),
    ).to.deep.equal([true, true, false, false, false]);
    expect(serverFilterFor({ streamPrefixes: ['task-', 'doc-'] })).to.deep.include({
      filterOn: 'streamName',
      prefixes: ['task-', 'doc-'],
    });
    // One server filter at a time: types go to the server, prefixes are checked on the client.
    expect(serverFilterFor({ eventTypes: ['A'], streamPrefixes: ['task-'] })).to.deep.include({
      filterOn: 'eventType',
    });
  });

  it('keeps the port metadata under its own key, next to the server keys', () => {
    expect(portMetadataFrom({ $maxAge: 10, archivist: { purgeAfter: 'x' } })).to.deep.equal({
      purgeAfter: 'x',
    });
    expect(portMetadataFrom(undefined)).to.deep.equal({});
    expect(portMetadataFrom({ archivist: 'nonsense' })).to.deep.equal({});
    const event = metadataEventData({ $acl: { $r: ['ops'] }, archivist: { old: true } }, { maxCount: 5 });
    expect(event.type).to.equal('$metadata');
    expect(event.data).to.deep.equal({ $acl: { $r: ['ops'] }, archivist: { maxCount: 5 } });
  });
});

describe('EventStoreDB error translation', () => {
  it('turns a version conflict into the port conflict with the actual version', () => {
    const conflict = new EsdbWrongExpectedVersionError(undefined, {
      streamName: 's',
      expected: 0n,
      current: 1n,
    });
    const translated = translateError(conflict, { stream: 's', expected: 1 }) as WrongExpectedVersionError;
    expect(translated).to.be.instanceOf(WrongExpectedVersionError);
    expect([translated.stream, translated.expected, translated.actual]).to.deep.equal(['s', 1, 2]);
    const missing = new EsdbWrongExpectedVersionError(undefined, {
      streamName: 's',
      expected: STREAM_EXISTS,
      current: NO_STREAM,
    });
    const fromError = translateError(missing) as WrongExpectedVersionError;
    expect([fromError.expected, fromError.actual]).to.deep.equal(['stream_exists', 0]);
  });

  it('turns a deleted stream into the port StreamDeletedError', () => {
    const translated = translateError(EsdbStreamDeletedError.fromStreamName('gone'), { stream: 'gone' });
    expect(translated).to.be.instanceOf(StreamDeletedError);
    expect((translated as StreamDeletedError).stream).to.equal('gone');
  });

  it('turns connection problems into EventStoreUnavailableError', () => {
    const grpc = Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 });
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2113'), { code: 'ECONNREFUSED' });
    for (const error of [
      new UnavailableError(undefined, '14 UNAVAILABLE: No connection established'),
      new DeadlineExceededError(undefined, '4 DEADLINE_EXCEEDED'),
      new CancelledError(undefined, '1 CANCELLED'),
      new UnknownError(undefined, 'Could not recognize response'),
      new AccessDeniedError(undefined, 'Access denied'),
      // What an HTTP endpoint that is not EventStoreDB (e.g. a proxy answering 404) gives.
      Object.assign(new UnknownError(undefined, '12 UNIMPLEMENTED: Received HTTP status code 404'), {
        code: 12,
      }),
      grpc,
      socket,
      new Error('Failed to discover after 10 attempts.'),
    ]) {
      const translated = translateError(error);
      expect(translated, error.message).to.be.instanceOf(EventStoreUnavailableError);
      expect((translated as Error).message).to.match(/^EventStoreDB unavailable: /);
      expect((translated as Error).cause).to.equal(error);
    }
    expect((translateError(new AccessDeniedError()) as Error).message).to.include('credentials');
  });

  it('leaves mistakes that retrying will not fix as they are', () => {
    const invalid = Object.assign(new UnknownError(undefined, '3 INVALID_ARGUMENT'), { code: 3 });
    expect(translateError(invalid)).to.equal(invalid);
    const bug = new TypeError('x is undefined');
    expect(translateError(bug)).to.equal(bug);
    const tooBig = translateError(MaxAppendSizeExceededError.fromMaxAppendSize(1024));
    expect(tooBig).to.be.instanceOf(RangeError);
    expect((tooBig as Error).message).to.include('1024');
    const portError = new StreamDeletedError('s');
    expect(translateError(portError)).to.equal(portError);
  });
});

describe('EventStoreDB subscription batches', () => {
  const source = (): Readable & EsdbSubscription =>
    Object.assign(new Readable({ objectMode: true, read() {} }), { unsubscribe: async () => undefined });

  it('yields what is buffered, up to the batch size, then what arrives', async () => {
    const stream = source();
    for (let i = 1; i <= 5; i += 1) stream.push(i);
    const batches = readBatches<number>(stream, 2, new AbortController().signal);
    expect((await batches.next()).value).to.deep.equal([1, 2]);
    expect((await batches.next()).value).to.deep.equal([3, 4]);
    expect((await batches.next()).value).to.deep.equal([5]);
    const later = batches.next();
    setTimeout(() => stream.push(6), 10);
    expect((await later).value).to.deep.equal([6]);
    stream.push(null);
    expect((await batches.next()).done).to.equal(true);
  });

  it('hands over the events received before an error, then throws it', async () => {
    const stream = source();
    stream.push('a');
    const batches = readBatches<string>(stream, 10, new AbortController().signal);
    expect((await batches.next()).value).to.deep.equal(['a']);
    const failing = batches.next();
    stream.emit('error', new UnavailableError(undefined, 'gone'));
    const error = await failing.catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UnavailableError);
  });

  it('ends when the signal aborts while waiting', async () => {
    const controller = new AbortController();
    const batches = readBatches<number>(source(), 10, controller.signal);
    const waiting = batches.next();
    setTimeout(() => controller.abort(), 10);
    expect((await waiting).done).to.equal(true);
  });
});

describe('EventStoreDB deleted-stream visibility', () => {
  const event = (streamName: string, position: number) =>
    ({ streamName, position }) as unknown as Parameters<
      ReturnType<typeof createStreamVisibility>['visible']
    >[0][0];

  it('checks each stream once, keeps order, and trusts "live" only for the cache time', async () => {
    let clock = 0;
    const checks: string[] = [];
    const states: Record<string, 'live' | 'deleted' | 'missing'> = { a: 'live', b: 'deleted', c: 'missing' };
    const visibility = createStreamVisibility({
      check: async (stream) => {
        checks.push(stream);
        return states[stream]!;
      },
      ttlMs: 100,
      now: () => clock,
    });
    const events = [event('a', 1), event('b', 2), event('a', 3), event('c', 4)];
    expect((await visibility.visible(events)).map((e) => e.position)).to.deep.equal([1, 3]);
    await visibility.visible(events);
    expect(checks.sort()).to.deep.equal(['a', 'b', 'c']);
    clock = 150;
    states['a'] = 'deleted';
    expect(await visibility.visible(events)).to.deep.equal([]);
    // "deleted" is permanent: never asked again.
    expect(checks.filter((s) => s === 'b')).to.have.length(1);
  });

  it('lets a deletion win over a check that was already running, and shares running checks', async () => {
    let release: (state: 'live') => void = () => undefined;
    let calls = 0;
    const visibility = createStreamVisibility({
      check: () => {
        calls += 1;
        return new Promise((resolve) => (release = resolve));
      },
    });
    const first = visibility.isVisible('s');
    const second = visibility.isVisible('s');
    visibility.markDeleted('s');
    release('live');
    await Promise.all([first, second]);
    expect(calls).to.equal(1);
    expect(await visibility.isVisible('s')).to.equal(false);
  });
});

async function until(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('EventStoreDB scavenge', () => {
  it('finds the first node, TLS and credentials in the connection string', () => {
    expect(scavengeTargetFrom('esdb://localhost:2113?tls=false')).to.deep.equal({
      baseUrl: 'http://localhost:2113',
      authorization: null,
      caFile: null,
    });
    expect(
      scavengeTargetFrom('esdb://admin:changeit@node1:2114,node2:2113?tls=true&tlsCAFile=%2Fcerts%2Fca.crt'),
    ).to.deep.equal({
      baseUrl: 'https://node1:2114',
      authorization: `Basic ${Buffer.from('admin:changeit').toString('base64')}`,
      caFile: '/certs/ca.crt',
    });
    expect(scavengeTargetFrom('esdb+discover://ops:p%40ss@cluster.local').baseUrl).to.equal(
      'https://cluster.local:2113',
    );
    expect(() => scavengeTargetFrom('http://localhost:2113')).to.throw(/esdb/);
  });

  it('starts a scavenge with POST /admin/scavenge and reads its id', async () => {
    const seen: Array<{ method?: string; url?: string; authorization?: string }> = [];
    let status = 200;
    const server = createServer((request, response) => {
      seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization });
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(status === 200 ? '{"scavengeId":"7f3c","result":"Started"}' : 'busy');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const target = scavengeTargetFrom(`esdb://admin:changeit@127.0.0.1:${port}?tls=false`);
      expect(await startScavenge(target)).to.deep.equal({ scavengeId: '7f3c' });
      expect(seen[0]).to.deep.equal({
        method: 'POST',
        url: '/admin/scavenge',
        authorization: `Basic ${Buffer.from('admin:changeit').toString('base64')}`,
      });
      status = 409;
      const error = await startScavenge(target).catch((e: unknown) => e);
      expect((error as Error).message).to.include('HTTP 409');
    } finally {
      server.close();
    }
  });

  it('starts one scavenge for a burst of deletions, retries a failed start, and flushes on close', async () => {
    let starts = 0;
    const warnings: unknown[] = [];
    const log = Object.assign(Object.create(silentLogger) as typeof silentLogger, {
      warn: (entry: unknown) => void warnings.push(entry),
    });
    const scheduler = createScavengeScheduler({
      delayMs: 50,
      log,
      start: async () => {
        starts += 1;
        if (starts === 1) throw new Error('connect ECONNREFUSED');
        return { scavengeId: 'x' };
      },
    });
    scheduler.requested();
    scheduler.requested();
    scheduler.requested();
    await until(() => warnings.length === 1);
    expect(starts).to.equal(1);
    await until(() => starts === 2);
    scheduler.requested();
    await scheduler.close();
    expect(starts).to.equal(3);
  });

  it('gives up retrying after a few attempts', async () => {
    let starts = 0;
    const scheduler = createScavengeScheduler({
      delayMs: 5,
      log: silentLogger,
      maxAttempts: 3,
      start: async () => {
        starts += 1;
        throw new Error('HTTP 400 scavenge already running');
      },
    });
    scheduler.requested();
    await until(() => starts === 3);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(starts).to.equal(3);
    await scheduler.close();
  });
});
