/**
 * A repeated ttotal (`--repeat n`): n single scale-outs, each restored to the starting capacity
 * before the next, combined into one artifact: every observation with its stages, the
 * representative timeline on top (the median T_total, or the first that is only a lower bound),
 * and the upper prediction bound for the next T_total. Pure.
 */
import type { TtotalArtifact, TtotalObservation } from '../model/artifacts.js';
import { upperPredictionBound } from '../stats/prediction-bound.js';
import { isLowerBound } from './ttotal.js';

/** One scale-out's record, as the single-scale-out artifact holds it. */
export function observationOf(artifact: TtotalArtifact, index: number): TtotalObservation {
  return {
    index,
    measured_at: artifact.measured_at,
    t_total_s: artifact.t_total_s,
    t_total_end_stage: artifact.t_total_end_stage ?? null,
    instance_id: artifact.instance_id,
    from_instances: artifact.from_instances,
    to_instances: artifact.to_instances,
    p95_before_ms: artifact.p95_before_ms,
    p95_after_ms: artifact.p95_after_ms,
    requests_before: artifact.requests_before ?? null,
    requests_after: artifact.requests_after ?? null,
    timeline: artifact.timeline,
    durations: artifact.durations,
    dominant_stage: artifact.dominant_stage,
    missing_stages: artifact.missing_stages,
    notes: artifact.notes,
  };
}

/** The observations of an artifact: its own list, else (older artifacts) its one scale-out. */
export const observationsOf = (artifact: TtotalArtifact): TtotalObservation[] =>
  artifact.observations ?? [observationOf(artifact, 0)];

/** The prediction bound of T_total from the observations: none when any is only a lower bound. */
export function tTotalPrediction(observations: readonly TtotalObservation[]) {
  const lowerBound = observations.find((o) => o.t_total_end_stage === 'in_service');
  if (lowerBound) {
    const b = upperPredictionBound([lowerBound.t_total_s]);
    return {
      n: observations.length,
      level: b.level,
      upper_s: null,
      method: null,
      description: `not available: observation ${lowerBound.index + 1} of ${observations.length} is only a lower bound (traffic never recovered)`,
    };
  }
  const b = upperPredictionBound(observations.map((o) => o.t_total_s));
  return {
    n: b.n,
    level: b.level,
    upper_s: b.upper === null ? null : Math.round(b.upper * 1000) / 1000,
    method: b.method,
    description: b.description,
  };
}

/**
 * The artifact of n scale-outs (each given as its own single-scale-out artifact, in order): the
 * representative one's fields on top, every observation, and the prediction bound.
 */
export function combineRepeats(runs: readonly TtotalArtifact[]): TtotalArtifact {
  if (runs.length === 0) throw new RangeError('combineRepeats needs at least one scale-out');
  const observations = runs.map((r, i) => observationOf(r, i));
  const lower = runs.findIndex((r) => isLowerBound(r));
  const byTotal = [...runs.keys()].sort(
    (a, b) => (runs[a] as TtotalArtifact).t_total_s - (runs[b] as TtotalArtifact).t_total_s,
  );
  const chosen = lower >= 0 ? lower : (byTotal[Math.floor((runs.length - 1) / 2)] as number);
  const top = runs[chosen] as TtotalArtifact;
  const prediction = tTotalPrediction(observations);
  const notes = [...top.notes];
  if (runs.length > 1) {
    notes.push(
      `${runs.length} scale-outs, each restored to ${top.from_instances} instance(s) before the next: T_total ${observations.map((o) => `${o.t_total_s} s`).join(', ')}; the timeline shown is observation ${chosen + 1} (${lower >= 0 ? 'the first that is only a lower bound' : 'the median'}); ${prediction.upper_s === null ? `prediction bound ${prediction.description}` : `upper ${Number((prediction.level * 100).toFixed(2))} % prediction bound for the next T_total ${prediction.upper_s} s (${prediction.description})`}`,
    );
  }
  const last = runs[runs.length - 1] as TtotalArtifact;
  return {
    ...top,
    notes,
    // What was put back at the end of the run is the last restore's record.
    restore: last.restore,
    settings: top.settings ? { ...top.settings, repeat: runs.length } : top.settings,
    observations,
    t_total_prediction: prediction,
  };
}
