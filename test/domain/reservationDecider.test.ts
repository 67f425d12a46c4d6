import type { ReservationCommand } from '../../src/domain/reservation/commands.js';
import { reservationDecider } from '../../src/domain/reservation/decider.js';
import { spec } from '../../src/domain/shared/deciderSpec.js';
import type { Metadata } from '../../src/domain/shared/index.js';

const metadata: Metadata = { now: '2026-12-06T10:00:00.000Z', actorId: 'worker', correlationId: 'c1' };
const reserve = (holder: string): ReservationCommand => ({
  type: 'ReserveKey',
  data: { kind: 'doc_source', key: 'k1', holder },
  metadata,
});
const release: ReservationCommand = { type: 'ReleaseKey', data: { kind: 'doc_source', key: 'k1' }, metadata };
const reserved = (holder: string) =>
  ({ type: 'KeyReserved', data: { kind: 'doc_source', key: 'k1', holder } }) as const;
const released = { type: 'KeyReleased', data: { kind: 'doc_source', key: 'k1' } } as const;

describe('reservation decider', () => {
  const key = spec(reservationDecider);

  it('gives a free key to the first claimant, and changes nothing for the next', () => {
    key
      .given([])
      .when(reserve('doc-1'))
      .then([reserved('doc-1')]);
    key
      .given([reserved('doc-1')])
      .when(reserve('doc-2'))
      .then([]);
    key
      .given([reserved('doc-1')])
      .when(reserve('doc-1'))
      .then([]);
  });

  it('frees a held key, which can then be claimed again; releasing a free key does nothing', () => {
    key
      .given([reserved('doc-1')])
      .when(release)
      .then([released]);
    key
      .given([reserved('doc-1'), released])
      .when(reserve('doc-2'))
      .then([reserved('doc-2')]);
    key.given([]).when(release).then([]);
    key
      .given([reserved('doc-1'), released])
      .when(release)
      .then([]);
  });

  it('frees a key only for the holder a conditional release names', () => {
    const releaseOf = (holder: string): ReservationCommand => ({
      type: 'ReleaseKey',
      data: { kind: 'doc_source', key: 'k1', holder },
      metadata,
    });
    key
      .given([reserved('doc-1')])
      .when(releaseOf('doc-2'))
      .then([]);
    key
      .given([reserved('doc-1')])
      .when(releaseOf('doc-1'))
      .then([released]);
  });
});
