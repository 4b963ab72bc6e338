/** The options of `scalegate tune` (command line only). */
import { subject, usage } from '../model/errors.js';
import { MODEL_OPTIONS, outFile } from './common.js';
import { number, type OptionTable, parsed, text } from './spec.js';

export const TUNE_OPTIONS = {
  ...MODEL_OPTIONS,
  qmaxFile: text(
    'qmax',
    '<file>',
    'qmax artifact (from `scalegate qmax`): the device each simulated instance is, Q_max',
  ),
  ttotalFile: text(
    'ttotal',
    '<file>',
    'ttotal artifact (from `scalegate ttotal`): the start-up each simulated instance replays, T_total',
  ),
  goodputFile: text(
    'goodput',
    '<file>',
    'goodput artifact: lambda_max and the measured metric levels, as `scalegate plan` reads them',
  ),
  drillFile: text('drill', '<file>', 'drill artifact: its measured policy lag, as `scalegate plan` reads it'),
  traceFile: text(
    'trace',
    '<file>',
    'the traffic to tune on: a trace file, rates (t_s,rps) or request timestamps (docs/traces.md)',
  ),
  shape: text(
    'shape',
    '<spec>',
    'the traffic to tune on: a built-in shape instead of a trace file, e.g. step:base=5,x=4,at_s=600 (docs/traces.md)',
  ),
  seed: parsed(
    'seed',
    '<n>',
    (raw) => {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > 2 ** 32 - 1) {
        throw usage`${subject('seed')} needs an integer from 0 to 4294967295, got "${raw}".`;
      }
      return n;
    },
    'the simulation seed, the same for every candidate (common random numbers)',
    { defaultText: '1' },
  ),
  outFile: outFile('tune artifact', 'tune-<model>.json'),
  svgFile: text('svg', '<file>', 'where to write the chart (instance-hours vs windows held)', {
    defaultText: 'beside the artifact, .svg for .json',
  }),
  maxCandidates: number(
    'max-candidates',
    '<n>',
    'positiveInteger',
    "at most this many candidate policies (the plan's neighbourhood first)",
    {
      defaultText: '40',
    },
  ),
  requiredAttainment: number(
    'required-attainment',
    '<share>',
    'positive',
    'the share of 10 s windows inside the SLO a candidate must hold to be chosen, in (0, 1]',
    { defaultText: '0.995' },
  ),
} as const satisfies OptionTable;
