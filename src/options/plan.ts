/** The options of `scalegate plan` (command line and action). */
import { MODEL_OPTIONS, outFile } from './common.js';
import { choice, flag, number, type OptionTable, text } from './spec.js';

/** How `scalegate plan` prints its plan (text: the report). */
export const PLAN_FORMATS = ['text', 'json', 'tfvars'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

/** Where the plan's instance price comes from (auto: stated, else the Price List API, else the table). */
export const PRICE_SOURCES = ['auto', 'api', 'table', 'config', 'none'] as const;
export type PriceSourceChoice = (typeof PRICE_SOURCES)[number];

const fromConfig = (key: string) => ({ defaultText: `the config's ${key}` });

export const PLAN_OPTIONS = {
  ...MODEL_OPTIONS,
  qmaxFile: text('qmax', '<file>', 'qmax artifact (from `scalegate qmax`)', {
    defaultText:
      'the newest in artifacts/ (by its measured_at) whose fingerprint fits the config, named on stderr',
    action: {
      defaultText: 'the newest in artifacts-dir (by its measured_at) whose fingerprint fits the config',
    },
  }),
  ttotalFile: text('ttotal', '<file>', 'ttotal artifact (from `scalegate ttotal`)', {
    defaultText:
      "the one in artifacts/ with the qmax's fingerprint (unless --assume-t-total), named on stderr",
    action: { defaultText: "the one in artifacts-dir with the qmax's fingerprint" },
  }),
  wakeFile: text(
    'wake',
    '<file>',
    "ttotal artifact of an inference component's wake from zero (`scalegate ttotal --path zero`): its measured wake replaces the bound of the plan's zero path",
    { action: false },
  ),
  drillFile: text(
    'drill',
    '<file>',
    "drill artifact (from `scalegate drill`): its measured policy lag replaces the computed or bounded one (labelled measured), and the plan reports the drill's predicted vs observed",
  ),
  goodputFile: text(
    'goodput',
    '<file>',
    'goodput artifact (from `scalegate goodput`): checks the throughput at the target against lambda_max (open_loop_headroom)',
    {
      defaultText:
        "the newest decided one in artifacts/ with the qmax's fingerprint and SLO, named on stderr; none: open_loop_headroom is suppressed",
      action: { defaultText: "the newest in artifacts-dir with the qmax's fingerprint, when there is one" },
    },
  ),
  tuneFile: text(
    'tune',
    '<file>',
    'tune artifact (from `scalegate tune`): deploy its chosen candidate (metric, target, scale-in threshold, cooldowns, min/max instances, step scale-out, scheduled actions), labelled chosen by simulation on its trace; refused unless it tuned this model on this qmax and ttotal and its chosen candidate reached the required attainment',
  ),
  outFile: outFile('plan artifact', 'plan-<model>.json'),
  failOn: choice('fail-on', '<level>', ['stop', 'warn'] as const, 'exit 1 on this verdict or worse', {
    default: 'stop',
  }),
  allowConfigMismatch: flag(
    'allow-config-mismatch',
    'plan from a qmax and a ttotal of different fingerprints (warns; recorded in the plan)',
  ),
  allowLowerBound: flag(
    'allow-lower-bound',
    'use a ttotal whose T_total is only a lower bound (the probe never recovered): refused otherwise, and skipped by discovery; the plan says LOWER BOUND everywhere and the gate refuses it unless allowed there too',
  ),
  assumeTTotalS: number(
    'assume-t-total',
    '<seconds>',
    'positive',
    'state T_total in seconds instead of measuring it (labelled stated, never measured)',
  ),
  peakRps: number('peak-rps', '<n>', 'positive', 'peak load, requests/s', fromConfig('peak_rps')),
  peakStreams: number(
    'peak-streams',
    '<n>',
    'positive',
    'peak load, concurrent streams',
    fromConfig('peak_streams'),
  ),
  troughRps: number('trough-rps', '<n>', 'nonNegative', 'trough load, requests/s', fromConfig('trough_rps')),
  troughStreams: number(
    'trough-streams',
    '<n>',
    'nonNegative',
    'trough load, concurrent streams',
    fromConfig('trough_streams'),
  ),
  surgeRatio: number(
    'surge-ratio',
    '<k>',
    'any',
    'traffic growth to absorb within one T_total, 1 <= k < 1.5',
    fromConfig('surge_ratio'),
  ),
  sloMs: number(
    'slo-ms',
    '<ms>',
    'positive',
    'p95 TTFAB SLO in ms; must equal the one the ladder was judged against',
    fromConfig('slo_ms'),
  ),
  policyRule: choice(
    'policy-rule',
    '<rule>',
    ['surge-safe', 'seed'] as const,
    "which rule the deployable values follow: surge-safe (each instance held at lambda_safe, the target in the tracked metric's own units) or seed (the closed-loop rule (1 - h) Q_max, for comparison drills; its verdict is stop when it overflows)",
    { default: 'surge-safe' },
  ),
  format: choice(
    'format',
    '<format>',
    PLAN_FORMATS,
    "what is printed: text (the report), json or tfvars (the deployable values, the tracked metric and the plan's identity (run id, sha256 of the plan file, fingerprint) as JSON or as Terraform variable assignments; docs/terraform.md)",
    { default: 'text', action: false },
  ),
  fromFile: text(
    'from',
    '<plan file>',
    'print an existing plan artifact (the one `scalegate gate` passes) in --format: nothing is derived or written, and no other artifact is read',
    { action: false },
  ),
  priceSource: choice(
    'price-source',
    '<source>',
    PRICE_SOURCES,
    "where the instance price of the cost block comes from: auto (the config's instance_hourly_usd, else the AWS Price List API, else the committed fallback table, each fallback noted with why), api (the Price List API only; its failure is exit 3), table (the fallback table only), config (instance_hourly_usd only), none (no cost figures; offline)",
    { default: 'auto' },
  ),
  promptsFile: text(
    'prompts',
    '<file>',
    'the prompts file the qmax ladder sent: its characters per request cost the plan when the qmax recorded no audio',
    { defaultText: "the qmax's recorded prompt source, when it is the built-in set or a readable file" },
  ),
  minInstancesFloor: number(
    'min-instances-floor',
    '<n>',
    'positiveInteger',
    'never fewer instances than this',
    fromConfig('min_instances_floor'),
  ),
} as const satisfies OptionTable;
