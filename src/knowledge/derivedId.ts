import { createHash } from 'node:crypto';

/**
 * A UUID-shaped id derived from `base` and `part` (a name-based UUID, version 5 layout, over
 * SHA-256): the same inputs give the same id on every host and in every attempt, so work that is
 * retried finds what its earlier attempts made as its own.
 */
export function derivedId(base: string, part: string): string {
  const bytes = createHash('sha256').update(`${base}\u0000${part}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
