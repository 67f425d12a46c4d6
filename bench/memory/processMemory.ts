/**
 * Another process's memory as Linux reports it in /proc/<pid>/status: resident set size now
 * (VmRSS) and its high-water mark (VmHWM), which `resetPeak` sets back to the current RSS so each
 * scenario gets its own peak.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const MB = 1024 * 1024;

function field(pid: number, name: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`${name}:\\s+(\\d+) kB`).exec(status);
  if (!match) throw new Error(`no ${name} for process ${pid}`);
  return (Number(match[1]) * 1024) / MB;
}

/** Resident memory now, in MB. */
export const rssMb = (pid: number): number => field(pid, 'VmRSS');

/** The highest resident memory since the process started (or since `resetPeak`), in MB. */
export const peakMb = (pid: number): number => field(pid, 'VmHWM');

/**
 * Makes VmHWM start again from the current RSS (`5` in clear_refs, Linux 4.0+); false when the
 * kernel refuses, in which case only polling sees the peak.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Follows a process's RSS every `everyMs` until `stop`; the peak is the higher of the polled and the kernel's. */
export function watchPeak(pid: number, everyMs = 10): { stop(): number } {
  const kernelPeak = resetPeak(pid);
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // The process ended; the last reading stands.
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return kernelPeak ? Math.max(peak, field(pid, 'VmHWM')) : peak;
    },
  };
}

/** The median of a few RSS readings `gapMs` apart: the idle figure, without one reading's noise. */
export async function settledRssMb(pid: number, readings = 5, gapMs = 200): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < readings; i += 1) {
    values.push(rssMb(pid));
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)]!;
}
