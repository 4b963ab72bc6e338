/**
 * A hand-built tune artifact (what `scalegate tune` writes) for the plan and the deployment
 * tests: its model, fingerprint and input runs are the measurements' it is built from, its chosen
 * candidate is `policy` (every score a fixed computed figure).
 */
import {
  type QmaxArtifact,
  type TtotalArtifact,
  type TuneArtifact,
  type TunedPolicy,
  type TuneEntry,
  tuneArtifactSchema,
} from '../../src/model/index.js';
import { anchorQmaxFile, anchorTtotalFile, configFile } from './anchor.js';

/** The trace's digest: the first 12 hex are what the plan's label names. */
export const TRACE_SHA256 = 'abcdef0123456789'.padEnd(64, '0');

/** A tuned policy with a step scale-out and two scheduled actions (a morning ramp, a night floor). */
export const TUNED_POLICY: TunedPolicy = {
  scaling_metric: 'ConcurrentRequestsPerModel',
  target_value: 5,
  scale_in_threshold: 3,
  scale_out_cooldown_s: 60,
  scale_in_cooldown_s: 600,
  min_instances: 2,
  max_instances: 500,
  step_scale_out: {
    threshold: 8,
    period_s: 60,
    evaluation_periods: 1,
    cooldown_s: 120,
    adjustment_type: 'ChangeInCapacity',
    steps: [
      { lower_bound: 0, upper_bound: 4, adjustment: 2 },
      { lower_bound: 4, upper_bound: null, adjustment: 5 },
    ],
  },
  scheduled_actions: [
    { name: 'morning-ramp', schedule: 'cron(30 7 * * ? *)', min_capacity: 40, max_capacity: 500 },
    { name: 'night-floor', schedule: 'cron(0 22 * * ? *)', min_capacity: 2, max_capacity: 500 },
  ],
};

const score = (attainment: number): TuneEntry['score'] => ({
  slo_attainment: attainment,
  request_attainment: attainment,
  windows: 8640,
  windows_outside_slo: Math.round(8640 * (1 - attainment)),
  requests: 1_000_000,
  overflows: 12,
  instance_hours: 1234.5,
  peak_instances: 260,
  scale_outs: 40,
  scale_ins: 38,
  p95_ttfab_ms: 820,
});

const entry = (label: string, policy: TunedPolicy | null, attainment: number): TuneEntry => ({
  label,
  policy,
  score: score(attainment),
  pareto: true,
  note: 'test fixture',
});

export function buildTune(
  qmax: QmaxArtifact,
  ttotal: TtotalArtifact,
  files: { qmax: string; ttotal: string },
  overrides: { policy?: TunedPolicy; chosenHolds?: boolean; modelName?: string } = {},
): TuneArtifact {
  const policy = overrides.policy ?? TUNED_POLICY;
  const holds = overrides.chosenHolds ?? true;
  return tuneArtifactSchema.parse({
    schema_version: 1,
    kind: 'tune',
    model_name: overrides.modelName ?? qmax.model_name,
    run_id: 'tune-run-1',
    created_at: '2026-11-30T12:00:00.000Z',
    fingerprint: qmax.fingerprint,
    inputs: {
      qmax: { file: files.qmax, run_id: qmax.run_id },
      ttotal: { file: files.ttotal, run_id: ttotal.run_id },
      goodput: null,
      drill: null,
    },
    trace: {
      source: 'traces/weekday.csv',
      sha256: TRACE_SHA256,
      kind: 'rate',
      duration_s: 86_400,
      requests: 1_000_000,
      peak_rps: 4800,
      mean_rps: 1200,
      start: '2026-11-23T00:00:00Z',
    },
    settings: {
      seed: 1,
      window_s: 10,
      slo_ms: qmax.slo_ms,
      max_overflow_probability: 0.05,
      evaluation_interval_s: 60,
      lambda_safe_rps: 20,
      required_slo_attainment: 0.99,
      t_plan_s: 300,
    },
    candidates: [entry('target 5, step +2/+5, 2 scheduled', policy, holds ? 0.995 : 0.97)],
    chosen: entry('target 5, step +2/+5, 2 scheduled', policy, holds ? 0.995 : 0.97),
    chosen_holds: holds,
    seed_rule: entry(
      'closed-loop rule (seed)',
      { ...policy, step_scale_out: null, scheduled_actions: [] },
      0.9,
    ),
    perfect_fleet: entry('perfect fleet', null, 1),
    provenance: { origin: 'measured', tool: 'scalegate test fixture', note: null },
  });
}

/** `scalegate tune` on the anchor measurements (config, model, qmax, ttotal), writing `outFile`. */
export const anchorTuneArgs = (outFile: string): string[] => [
  'tune',
  '--config',
  configFile,
  '--model',
  'kokoro-82m',
  '--qmax',
  anchorQmaxFile,
  '--ttotal',
  anchorTtotalFile,
  '--out',
  outFile,
];
