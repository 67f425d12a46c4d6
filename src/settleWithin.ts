/**
 * `promise`, or a rejection with `expired()` once `ms` have passed without it settling. The work
 * itself goes on (nothing here can stop it); the caller stops waiting. With `unref`, the timer does
 * not keep the process alive on its own.
 */
export async function settleWithin<T>(
  promise: Promise<T>,
  ms: number,
  expired: () => Error,
  options: { unref?: boolean } = {},
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), ms);
    if (options.unref) timer.unref();
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
