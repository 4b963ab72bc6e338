/**
 * The looks of one open-loop rung in order: the first decisive look ends it (pass, fail, or
 * undecided by futility), and the stated limits (overflows, errors) ride on every look. Pure.
 */
import {
  decideOpenLoopLook,
  lookSpending,
  OPEN_LOOP_ALPHA,
  OPEN_LOOP_RULE,
  type OpenLoopDecision,
  type OpenLoopDecisionSettings,
  type OpenLoopRule,
  type OpenLoopVerdict,
  type WindowedSamples,
} from './open-loop-decision.js';

/** One look of a sequence, as recorded per rung. */
export interface OpenLoopLookRecord {
  span_s: number;
  n: number;
  alpha_pass: number;
  alpha_fail: number;
  verdict: OpenLoopVerdict;
  stop: boolean;
  batches: number;
  von_neumann: number | null;
  sensitivity: number | null;
}

export interface SequentialDecision extends OpenLoopDecision {
  looks: OpenLoopLookRecord[];
  /** Measure span of the look that ended the rung (the hold's span when none did). */
  stoppedAtS: number;
}

/**
 * The rung's decision over its looks: `prefix(spanS)` gives the windows of the first spanS
 * seconds of the measure window; looks up to `availableS` are taken in order and the first that
 * stops the rung decides it; a rung that reaches the end of the hold (`maxSpanS`) is decided by
 * its last look, pass or fail or undecided.
 */
export function decideOpenLoopSequential(
  prefix: (spanS: number) => WindowedSamples,
  settings: OpenLoopDecisionSettings & {
    maxSpanS: number;
    availableS?: number;
    /** Other stated limits at a look's span: `fail` ends the rung, `undecided` keeps it from passing. */
    limits?: (spanS: number) => { verdict: OpenLoopVerdict; reason: string } | null;
  },
): SequentialDecision {
  const rule: OpenLoopRule = { ...OPEN_LOOP_RULE, ...settings.rule };
  const available = settings.availableS ?? settings.maxSpanS;
  const looks: OpenLoopLookRecord[] = [];
  let last: OpenLoopDecision | null = null;
  const spending = lookSpending(settings.maxSpanS, settings.alpha ?? OPEN_LOOP_ALPHA, rule);
  const lastLook = spending[spending.length - 1];
  for (const look of spending) {
    if (look.spanS > available + 1e-9) break;
    const final = look.spanS >= settings.maxSpanS - 1e-9 || look.spanS >= available - 1e-9;
    const d = withLookLimits(
      decideOpenLoopLook(prefix(look.spanS), settings, {
        ...look,
        final: look.spanS >= settings.maxSpanS - 1e-9,
        ...(lastLook ? { last: lastLook } : {}),
      }),
      settings.limits?.(look.spanS) ?? null,
    );
    looks.push({
      span_s: look.spanS,
      n: d.n,
      alpha_pass: look.alphaPass,
      alpha_fail: look.alphaFail,
      verdict: d.verdict,
      stop: d.stop,
      batches: d.batches,
      von_neumann: d.vonNeumann,
      sensitivity: d.sensitivity,
    });
    last = d;
    if (d.stop) return { ...d, looks, stoppedAtS: look.spanS };
    if (final && look.spanS < settings.maxSpanS - 1e-9) {
      // The rung was stopped here (live, on a decisive look): the complete data no longer decides.
      return {
        ...d,
        verdict: 'undecided',
        looks,
        stoppedAtS: look.spanS,
        reason: `stopped at the ${look.spanS} s look, which the complete data does not decide: ${d.reason}`,
      };
    }
  }
  if (last === null) {
    const empty = decideOpenLoopLook(prefix(0), settings, {
      spanS: 0,
      alphaPass: 1e-9,
      alphaFail: 1e-9,
      final: false,
    });
    return { ...empty, verdict: 'undecided', looks, stoppedAtS: 0, reason: `no look yet: ${empty.reason}` };
  }
  return {
    ...last,
    verdict: last.verdict === 'pass' || last.verdict === 'fail' ? last.verdict : 'undecided',
    looks,
    stoppedAtS: looks[looks.length - 1]?.span_s ?? 0,
  };
}

/** A look's verdict with the stated limits: a broken limit fails, one not shown to hold keeps it from passing. */
export function withLookLimits(
  d: OpenLoopDecision,
  limit: { verdict: OpenLoopVerdict; reason: string } | null,
): OpenLoopDecision {
  if (limit === null) return d;
  if (limit.verdict === 'fail')
    return { ...d, verdict: 'fail', stop: true, reason: `${limit.reason}; ${d.reason}` };
  if (d.verdict === 'pass')
    return { ...d, verdict: 'undecided', stop: false, reason: `${limit.reason}; ${d.reason}` };
  return d;
}
