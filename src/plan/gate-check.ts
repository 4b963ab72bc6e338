/**
 * One check of the release gate (src/plan/gate.ts lists them all in GATE_CHECKS): its name, whether
 * it passed, what it saw, and the scalegate command (or config change) that fixes it. The modules
 * that judge one concern each (gate-measurements.ts, gate-config.ts, gate-proofs.ts) build their
 * checks with these helpers; gate.ts types the names against GATE_CHECKS.
 */
export interface GateCheckOf<N extends string> {
  check: N;
  ok: boolean;
  detail: string;
  /** The scalegate command (or config change) that fixes a failed check; null when ok. */
  fix: string | null;
}

export const passCheck = <N extends string>(check: N, detail: string): GateCheckOf<N> => ({
  check,
  ok: true,
  detail,
  fix: null,
});

export const failCheck = <N extends string>(check: N, detail: string, fix: string): GateCheckOf<N> => ({
  check,
  ok: false,
  detail,
  fix,
});
