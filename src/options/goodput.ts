/** The options of `scalegate goodput` (command line and action). */
import { parseShard } from '../load/open/arrivals.js';
import { subject, usage } from '../model/errors.js';
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
import { flag, number, type OptionTable, parsed, text, toggle } from './spec.js';

/** What goodput measures with when not told otherwise. */
export const GOODPUT_DEFAULTS = {
  startRate: 1,
  maxRate: 1000,
  resolution: 0.05,
  holdS: 600,
  settleS: 15,
  seed: 1,
  maxOverflowFraction: 0.01,
  maxErrorFraction: 0.01,
  maxOutstanding: 1000,
  minSamples: 100,
  rungGapS: 10,
  /** Longest wait for CloudWatch datapoints after the last rate, s. */
  cloudwatchWaitS: 180,
} as const;

const d = GOODPUT_DEFAULTS;

/** Comma-separated positive rates (`5,10,15.5`). */
function parseRates(raw: string): number[] {
  const parts = raw.split(',').map((p) => p.trim());
  const values = parts.map(Number);
  if (parts.some((p) => p === '') || values.some((n) => !Number.isFinite(n) || n <= 0)) {
    throw usage`${subject('rates')} needs comma-separated positive rates in requests/s (e.g. 5,10,15), got "${raw}"; a rate of 0 or below sends nothing.`;
  }
  return values;
}

const fraction = (name: string, description: string, dflt: number) =>
  parsed(
    name,
    '<fraction>',
    (raw) => {
      const f = Number(raw);
      if (raw.trim() === '' || !(f >= 0 && f <= 1)) {
        throw usage`${subject(name)} needs a fraction between 0 and 1 (0.01 = 1 %), got "${raw}".`;
      }
      return f;
    },
    description,
    { defaultText: `${dflt}` },
  );

export const GOODPUT_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  outFile: outFile('artifact', 'goodput-<model>-<transport>-<slug>.json'),
  ...LOAD_TARGET_OPTIONS,
  sloMs: number('slo-ms', '<ms>', 'positive', 'p95 TTFAB SLO in ms, from the intended send time', {
    defaultText: "the config's slo_ms",
  }),
  copies: number(
    'copies',
    '<n>',
    'positiveInteger',
    "inference-component models: the component's copy count pinned while measuring (its scalable target suspended, restored after); the arrivals are shared among the copies, so lambda_max per copy = lambda_max / copies",
    { defaultText: '1', action: false },
  ),
  ...CONTINUITY_OPTIONS,
  startRate: number(
    'start-rate',
    '<rps>',
    'positive',
    'first Poisson arrival rate of the adaptive ladder, requests/s; without it a scout of 5 s steps doubling from 1/s places the start',
    {
      defaultText: `a scout from ${d.startRate}/s`,
    },
  ),
  maxRate: number('max-rate', '<rps>', 'positive', 'highest rate the adaptive ladder tries', {
    defaultText: `${d.maxRate}`,
  }),
  minRate: number('min-rate', '<rps>', 'positive', 'lowest rate when walking down from a failing start', {
    defaultText: 'start-rate / 16',
  }),
  resolution: number(
    'resolution',
    '<fraction>',
    'positive',
    'bisect until the breach and lambda_max are within this fraction of the breach',
    {
      defaultText: `${d.resolution}`,
    },
  ),
  rates: parsed(
    'rates',
    '<list>',
    parseRates,
    'a fixed ladder: exactly these rates, comma-separated (required with --shard)',
    {
      defaultText: 'the adaptive ladder',
    },
  ),
  holdS: number(
    'hold-s',
    '<s>',
    'positive',
    'longest schedule of each rung, seconds: an adaptive rung ends at its first decisive look (near saturation a p95 needs thousands of arrivals)',
    {
      defaultText: `${d.holdS}`,
    },
  ),
  settleS: number(
    'settle-s',
    '<s>',
    'nonNegative',
    'discarded start of each rung (the queue warming up from empty), seconds',
    {
      defaultText: `${d.settleS}`,
    },
  ),
  seed: number(
    'seed',
    '<n>',
    'nonNegative',
    "seed of rung 0's Poisson schedule (rung i uses seed + i); shards share it",
    {
      defaultText: `${d.seed}`,
    },
  ),
  maxOverflowFraction: fraction(
    'max-overflow-fraction',
    'most 503 queue_saturated (and 429) overflows a passing rate may have, as a fraction of its arrivals',
    d.maxOverflowFraction,
  ),
  maxErrorFraction: fraction(
    'max-error-fraction',
    'most other failures (5xx, model errors, timeouts, client-dropped arrivals) a passing rate may have, as a fraction of its arrivals',
    d.maxErrorFraction,
  ),
  maxOutstanding: number(
    'max-outstanding',
    '<n>',
    'positiveInteger',
    'client cap on requests outstanding; arrivals beyond it are counted client_dropped',
    {
      defaultText: `${d.maxOutstanding}`,
    },
  ),
  minSamples: number(
    'min-samples',
    '<n>',
    'positiveInteger',
    'a rung is never decided on fewer ok requests',
    {
      defaultText: `${d.minSamples}`,
    },
  ),
  shard: parsed(
    'shard',
    '<i/n>',
    (raw) => {
      parseShard(raw);
      return raw;
    },
    'send shard i of n of every rung (the same --rates, --seed and --start-at on every shard; `scalegate merge` combines them)',
    {
      defaultText: 'the whole schedule',
    },
  ),
  startAt: text(
    'start-at',
    '<iso-time>',
    'wall time (ISO-8601 with a zone) at which the first rung starts, the same on every shard',
    {
      defaultText: 'as soon as the endpoint is frozen',
    },
  ),
  rungGapS: number(
    'rung-gap-s',
    '<s>',
    'nonNegative',
    'with --start-at: pause between one rung and the next, seconds (the rungs start on a fixed grid)',
    {
      defaultText: `${d.rungGapS}`,
    },
  ),
  ...LOAD_BODY_OPTIONS,
  ...REQUEST_SHAPE_OPTIONS,
  requestTimeoutS: requestTimeoutOption(),
  cloudwatch: toggle(
    'cloudwatch',
    'join CloudWatch ConcurrentRequestsPerModel (Maximum, 10 s) per rate: the metric level the plan targets',
    'skip the CloudWatch join (no metric level per rate)',
  ),
  cloudwatchWaitS: number(
    'cloudwatch-wait-s',
    '<s>',
    'nonNegative',
    'longest wait for late CloudWatch datapoints after the last rate',
    { defaultText: `${d.cloudwatchWaitS}`, action: false },
  ),
  ...FREEZE_WAIT_OPTIONS,
  ...FREEZE_OPTIONS,
  dryRun: flag('dry-run', 'print the schedule, worst-case duration, instance-minutes and cost; no AWS call'),
} as const satisfies OptionTable;
