/** The parse pool cannot take the job now (its queue is full, or the job waited too long): retry later. */
export class PoolBusyError extends Error {
  override readonly name = 'PoolBusyError';
}
