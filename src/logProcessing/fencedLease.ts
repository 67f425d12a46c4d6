import type { Lease, ReadStore, WriteOperation } from '../readStore/readStore.js';

export type Leases = Pick<ReadStore, 'acquireLease' | 'releaseLease'>;

/** A lease this process holds: the fence its writes carry, renewal when due, and release. */
export interface HeldLease {
  lease: Lease;
  /** Precondition for the holder's writes: refused once another process has taken the lease over. */
  fence: WriteOperation;
  /** Renews the lease when a third of its time has passed; false once it was lost to another holder. */
  renewIfDue(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * Takes the named lease for `owner`, or null while another owner holds it. Renewal keeps the epoch;
 * a renewal that finds a different epoch means the lease changed hands while this holder was paused
 * past its expiry, so it must stop — its fenced writes would be refused anyway.
 */
export async function holdLease(
  leases: Leases,
  name: string,
  owner: string,
  ttlMs: number,
): Promise<HeldLease | null> {
  const lease = await leases.acquireLease(name, owner, ttlMs);
  if (!lease) return null;
  let renewedAt = Date.now();
  return {
    lease,
    fence: { op: 'fence', lease: lease.name, owner, epoch: lease.epoch },
    async renewIfDue() {
      if (Date.now() - renewedAt <= ttlMs / 3) return true;
      const renewed = await leases.acquireLease(name, owner, ttlMs);
      if (!renewed || renewed.epoch !== lease.epoch) return false;
      renewedAt = Date.now();
      return true;
    },
    release: () => leases.releaseLease(name, owner),
  };
}
