/** The options of `scalegate drill` (command line and action). */
import {
  CONTINUITY_OPTIONS,
  ENDPOINT_OPTIONS,
  LOAD_BODY_OPTIONS,
  MODEL_OPTIONS,
  outFile,
  REQUEST_SHAPE_OPTIONS,
} from './common.js';
import { flag, number, type OptionTable, text } from './spec.js';

export const DRILL_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  planFile: text('plan', '<file>', 'the plan whose deployed policy is drilled (from `scalegate plan`)', {
    // Required to drill, but not on the command line's `drill merge`, which commander parses as a subcommand.
    defaultText: 'required',
    action: { defaultText: '`<artifacts-dir>/plan-<model>.json`' },
  }),
  outFile: outFile(
    'drill artifact',
    'drill-<model>-<slug>.json (a shard: drill-<model>-<slug>.shard-<i>-of-<n>.json)',
  ),
  surgeRatio: number('surge-ratio', '<k>', 'any', 'surge to k times the steady load, 1 <= k <= 2', {
    defaultText: "the plan's surge ratio",
  }),
  startInstances: number(
    'start-instances',
    '<n>',
    'positiveInteger',
    'instances the steady load (lambda_safe x n; X_target x n for a plan that predates lambda_safe) is sized for; the desired count is set to n before the load starts (an inference-component model: --start-copies)',
    { defaultText: "the plan's min_instances" },
  ),
  startCopies: number(
    'start-copies',
    '<n>',
    'positiveInteger',
    'an inference-component model: copies (not instances) the steady load (lambda_safe per copy x n) is sized for; the copy count is set to n before the load starts, the instances follow it',
    { defaultText: "the plan's min copies (at least 1)" },
  ),
  fromZero: flag(
    'from-zero',
    "an inference-component model with min copies 0: before the schedule, set the component to 0 copies, then measure its wake (no-capacity failures, retries of the plan's budget, first success) and judge it against the plan's wake tolerance and retry budget",
  ),
  allowPolicyMismatch: flag(
    'allow-policy-mismatch',
    "drill whatever policy is deployed (e.g. a hand-tuned one) when it is not the plan's; the differences are recorded",
  ),
  shard: text(
    'shard',
    '<i/n>',
    'send shard i of n of the schedule (each shard a separate process or job; merge them after)',
    {
      defaultText: 'the whole schedule',
    },
  ),
  startAt: text(
    'start-at',
    '<time>',
    'ISO-8601 time (with zone) at which the schedule starts; every shard gets the same',
    {
      defaultText: 'the next 10 s boundary, a few seconds ahead',
    },
  ),
  steadyS: number('steady-s', '<s>', 'positive', 'steady phase length, seconds', {
    defaultText: 'T_plan + 60',
  }),
  surgeS: number('surge-s', '<s>', 'positive', 'surge phase length, seconds', {
    defaultText: 'T_plan + max(30, T_plan / 2)',
  }),
  troughS: number('trough-s', '<s>', 'positive', 'trough phase length, seconds', {
    defaultText: "the scale-in alarm's window + scale_in_cooldown_s + 120",
  }),
  steadyRps: number(
    'steady-rps',
    '<n>',
    'positive',
    'steady load, requests/s (labelled chosen): e.g. below the target, so that the surge, not the steady phase, starts the scale-out from a busy endpoint',
    { defaultText: "the plan's lambda_safe (older plans: X_target) x --start-instances" },
  ),
  troughRps: number('trough-rps', '<n>', 'nonNegative', 'trough load, requests/s', {
    defaultText: "the plan's trough load",
  }),
  promptsFile: text('prompts', '<file>', 'texts to synthesise: JSONL {"text": ...} or plain lines', {
    defaultText: 'the built-in set',
  }),
  eventsFile: LOAD_BODY_OPTIONS.eventsFile,
  ...REQUEST_SHAPE_OPTIONS,
  ...CONTINUITY_OPTIONS,
  windowS: number('window-s', '<s>', 'positive', 'length of the windows the SLO is judged on, seconds', {
    defaultText: '10',
  }),
  seed: number('seed', '<n>', 'nonNegative', 'seed of the Poisson arrivals (every shard the same)', {
    defaultText: '1',
  }),
  mergeFiles: text(
    'merge',
    '<files>',
    'merge the shard files of one drill (separated by newlines, commas or spaces) into the whole drill instead of running one',
    { cli: false },
  ),
  dryRun: flag('dry-run', 'print the phases, duration, instance-minutes and cost; no AWS call'),
} as const satisfies OptionTable;
