import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = () => void;

let collect: Collect | null | undefined;

/**
 * V8's `gc` for the calling thread (main or worker), made available without a command-line flag:
 * `--expose-gc` set at run time applies to contexts created afterwards, so a new context hands it
 * over. Null when V8 refuses. For the few places where memory must go back at a known moment
 * (after a large parse), not for general use.
 */
export function fullCollection(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    const found: unknown = runInNewContext('typeof gc === "function" ? gc : null');
    collect = typeof found === 'function' ? (found as Collect) : null;
  } catch {
    collect = null;
  }
  return collect;
}
