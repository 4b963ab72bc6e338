// Stage markers of the container contract (infra/container/README.md): one stdout line
// each, in this order. `ttotal` reads them back from the instance's log stream.
import { writeSync } from 'node:fs';

export const STAGES = ['container_start', 'framework_init', 'weights_ready', 'warmup_done', 'ready'] as const;
export type Stage = (typeof STAGES)[number];

export function isStage(value: string): value is Stage {
  return (STAGES as readonly string[]).includes(value);
}

/**
 * `=== STAGE <name> t=<UTC ISO-8601 with ms, ending in Z> elapsed_s=<s since process start, 3 dp> ===`
 * `wallMs` is epoch milliseconds; `elapsedMs` is milliseconds since the process started.
 */
export function formatStageLine(stage: Stage, wallMs: number, elapsedMs: number): string {
  return `=== STAGE ${stage} t=${new Date(wallMs).toISOString()} elapsed_s=${(elapsedMs / 1000).toFixed(3)} ===`;
}

let nextStage = 0;

/**
 * Prints the marker for `stage` (synchronously, so a crash right after it cannot lose it) and,
 * when FAIL_AT_STAGE names this stage, exits 1 right after: a test fault that models an instance
 * failing to start at that point. Stages must be marked once each, in order.
 */
export function markStage(stage: Stage): void {
  const expected = STAGES[nextStage];
  if (stage !== expected)
    throw new Error(`stage ${stage} marked out of order (expected ${expected ?? 'none'})`);
  nextStage += 1;
  // performance.now() counts from performance.timeOrigin, the start of this process.
  writeLine(formatStageLine(stage, Date.now(), performance.now()));
  if (process.env.FAIL_AT_STAGE === stage) {
    process.stderr.write(`[tts] FAIL_AT_STAGE=${stage}: exiting 1 as requested\n`);
    process.exit(1);
  }
}

/** Writes one whole line to stdout synchronously (loops over short writes, retries EAGAIN). */
export function writeLine(line: string): void {
  const bytes = Buffer.from(`${line}\n`, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(1, bytes, offset, bytes.length - offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}
