/**
 * The holds the seeded coverage simulations validated the rung decisions at. A measurement run
 * with shorter holds (or settle periods) is outside what was proven: its verdicts may still be
 * right, but the plan and the goodput artifact say `validated_hold: false`. Pure.
 *
 * - Closed loop (test/stats/rung-decision-coverage.test.ts, bench/coverage.ts): a rung held up to
 *   120 s after a 10 s settle.
 * - Open loop (test/stats/open-loop-decision-coverage.test.ts, bench/coverage-openloop.ts): a 30 s
 *   settle, holds of 300-1200 s and the same grid at a quarter of them: 75 s is the shortest.
 */
export const CLOSED_LOOP_VALIDATED = { holdS: 120, settleS: 10 } as const;
export const OPEN_LOOP_VALIDATED = { holdS: 75, settleS: 30 } as const;

export interface HoldCheck {
  validated: boolean;
  /** What was used against what was validated, one clause. */
  detail: string;
}

/** A rung's hold and settle against the validated ones; settle null: not recorded (legacy). */
export function checkHold(
  kind: 'closed-loop' | 'open-loop',
  holdS: number,
  settleS: number | null,
): HoldCheck {
  const v = kind === 'closed-loop' ? CLOSED_LOOP_VALIDATED : OPEN_LOOP_VALIDATED;
  const short: string[] = [];
  if (holdS < v.holdS) short.push(`hold ${holdS} s < ${v.holdS} s`);
  if (settleS === null) short.push('settle not recorded');
  else if (settleS < v.settleS) short.push(`settle ${settleS} s < ${v.settleS} s`);
  return {
    validated: short.length === 0,
    detail:
      short.length === 0
        ? `${kind} hold ${holdS} s, settle ${settleS} s: at or above the validated ${v.holdS} s / ${v.settleS} s`
        : `${kind} ${short.join(', ')} (the coverage simulations validated hold ${v.holdS} s, settle ${v.settleS} s)`,
  };
}
