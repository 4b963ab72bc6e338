/** The options of `scalegate qmax` (command line and action). */
import { DEFAULT_FIXED_RUNGS } from '../load/closed/ladder.js';
import {
  CONTINUITY_OPTIONS,
  ENDPOINT_OPTIONS,
  FREEZE_OPTIONS,
  FREEZE_WAIT_OPTIONS,
  LOAD_BODY_OPTIONS,
  LOAD_TARGET_OPTIONS,
  MODEL_OPTIONS,
  outFile,
  REQUEST_SHAPE_OPTIONS,
  requestTimeoutOption,
} from './common.js';
import { choice, flag, integerList, number, type OptionTable, toggle } from './spec.js';

/** The ladders' timings and bounds when not given. */
export const LADDER_DEFAULTS = {
  fixed: { holdS: 240, measureS: 60, settleS: 30 },
  adaptive: { holdS: 120, measureS: 30, settleS: 10, maxConcurrency: 128, resolution: 2 },
} as const;

/** Longest wait for late CloudWatch datapoints after the ladder (metrics arrive late on AWS), s. */
export const CLOUDWATCH_WAIT_S = 180;

export const QMAX_DEFAULTS = { runs: 1, minSamples: 100 } as const;

const a = LADDER_DEFAULTS.adaptive;
const f = LADDER_DEFAULTS.fixed;

export const QMAX_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  outFile: outFile('artifact', 'qmax-<model>-<transport>-<slug>.json'),
  ...LOAD_TARGET_OPTIONS,
  sloMs: number('slo-ms', '<ms>', 'positive', 'p95 TTFAB SLO in ms', { defaultText: "the config's slo_ms" }),
  copies: number(
    'copies',
    '<n>',
    'positiveInteger',
    "inference-component models: the component's copy count pinned while measuring (its scalable target suspended, restored after); the load is shared among the copies, so concurrency per copy = in flight / copies",
    { defaultText: '1', action: false },
  ),
  ...CONTINUITY_OPTIONS,
  ladder: choice(
    'ladder',
    '<mode>',
    ['adaptive', 'fixed'] as const,
    'how the ladder walks: doubling, then bisection (adaptive), or exactly the rungs given (fixed)',
    {
      default: 'adaptive',
    },
  ),
  rungs: integerList('rungs', '<list>', 'fixed ladder rungs, comma-separated', {
    defaultText: DEFAULT_FIXED_RUNGS.join(','),
  }),
  maxConcurrency: number(
    'max-concurrency',
    '<n>',
    'positiveInteger',
    'highest concurrency the ladder tries',
    {
      defaultText: `adaptive ${a.maxConcurrency}, fixed the highest rung`,
    },
  ),
  resolution: number(
    'resolution',
    '<n>',
    'positiveInteger',
    'adaptive: bisect until Q_max is known to within n',
    {
      defaultText: `${a.resolution}`,
    },
  ),
  holdS: number('hold-s', '<s>', 'positive', 'longest a rung runs, seconds', {
    defaultText: `adaptive ${a.holdS}, fixed ${f.holdS}`,
  }),
  measureS: number('measure-s', '<s>', 'positive', 'measure window: the last seconds of the hold', {
    defaultText: `adaptive ${a.measureS}, fixed ${f.measureS}`,
  }),
  settleS: number('settle-s', '<s>', 'nonNegative', 'discarded start of each rung, seconds', {
    defaultText: `adaptive ${a.settleS}, fixed ${f.settleS}`,
  }),
  runs: number(
    'runs',
    '<n>',
    'positiveInteger',
    'repeat the whole ladder; Q_max is the lowest run (2 or more evaluates curve_repeatability)',
    {
      defaultText: `${QMAX_DEFAULTS.runs}`,
    },
  ),
  ...LOAD_BODY_OPTIONS,
  ...REQUEST_SHAPE_OPTIONS,
  cloudwatch: toggle(
    'cloudwatch',
    'join CloudWatch ConcurrentRequestsPerModel per rung (R); without it the plan has no deployable threshold',
    'skip the CloudWatch join (no R)',
  ),
  cloudwatchWaitS: number(
    'cloudwatch-wait-s',
    '<s>',
    'nonNegative',
    'longest wait for late CloudWatch datapoints',
    {
      defaultText: `${CLOUDWATCH_WAIT_S}`,
      action: false,
    },
  ),
  requestTimeoutS: requestTimeoutOption(),
  minSamples: number(
    'min-samples',
    '<n>',
    'positiveInteger',
    'a rung is never decided on fewer samples (at least 72)',
    {
      defaultText: `${QMAX_DEFAULTS.minSamples}`,
    },
  ),
  ...FREEZE_WAIT_OPTIONS,
  ...FREEZE_OPTIONS,
  dryRun: flag('dry-run', 'print the schedule, worst-case duration, instance-minutes and cost; no AWS call'),
} as const satisfies OptionTable;
