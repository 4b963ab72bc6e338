/** The options of `scalegate ttotal` (command line and action). */
import {
  ENDPOINT_OPTIONS,
  FREEZE_OPTIONS,
  LOAD_BODY_OPTIONS,
  MODEL_OPTIONS,
  outFile,
  REQUEST_SHAPE_OPTIONS,
} from './common.js';
import { choice, flag, number, type OptionTable, text } from './spec.js';

/** What ttotal measures with when not told otherwise. */
export const TTOTAL_DEFAULTS = {
  /** Length of the recovery window (the 60 s). */
  settleS: 60,
  pollS: 5,
  maxWaitS: 1800,
  /** Completions a recovery window needs before its p95 is believed. */
  minWindowSamples: 20,
  /** The recovered p95 may be this much above the ladder's p95 at N/2. */
  recoveryFactor: 1.25,
  requestTimeoutMs: 60_000,
  /** Scale-outs timed per run (`--repeat`): one; the calibrate workflow times three. */
  repeat: 1,
} as const;

const d = TTOTAL_DEFAULTS;

export const TTOTAL_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  qmaxFile: text('qmax', '<file>', 'qmax artifact of this endpoint (from `scalegate qmax`)', {
    defaultText:
      'the newest in artifacts/ (artifacts/local/ on the local SageMaker) whose fingerprint fits the config, named on stderr',
    action: { defaultText: 'the newest in artifacts-dir whose fingerprint fits the config' },
  }),
  outFile: outFile('artifact', 'ttotal-<model>-force-desired-<slug>.json'),
  probeConcurrency: number('probe-concurrency', '<n>', 'positiveInteger', 'probe at N in flight', {
    defaultText:
      'the highest usable rung <= Q_max whose half is a usable rung; when that is under Q_max / 4, the highest whose half lies between two usable rungs (its p95 interpolated, noted in the artifact)',
  }),
  maxWaitS: number('max-wait-s', '<s>', 'positive', 'longest wait for the scale-out, seconds', {
    defaultText: `${d.maxWaitS}`,
  }),
  settleS: number(
    'settle-s',
    '<s>',
    'positive',
    'recovery window, also the probe hold before the trigger, seconds',
    {
      defaultText: `${d.settleS}`,
    },
  ),
  pollS: number(
    'poll-s',
    '<s>',
    'positive',
    'DescribeEndpoint poll interval (the bound on in_service), seconds',
    {
      defaultText: `${d.pollS}`,
    },
  ),
  minWindowSamples: number(
    'min-window-samples',
    '<n>',
    'positiveInteger',
    'completions a recovery window needs',
    {
      defaultText: `${d.minWindowSamples}`,
      action: false,
    },
  ),
  recoveryFactor: number(
    'recovery-factor',
    '<k>',
    'positive',
    "recovered when the probe p95 <= k x the ladder's p95 at N/2 (recorded in the artifact)",
    { defaultText: `${d.recoveryFactor}` },
  ),
  publicationDelayS: number(
    'publication-delay-s',
    '<s>',
    'nonNegative',
    'CloudWatch publication delay added to the alarm period x datapoints',
    { defaultText: 'one period, labelled assumed', action: false },
  ),
  repeat: number(
    'repeat',
    '<n>',
    'positiveInteger',
    'scale-outs to time in the one freeze (each restored to the starting capacity before the next); from 2 on, the plan uses their upper 90 % prediction bound',
    { defaultText: `${d.repeat}` },
  ),
  quotaCode: text('quota-code', '<code>', 'Service Quotas code of "<instance type> for endpoint usage"', {
    defaultText: 'found by name',
    action: false,
  }),
  allowConfigMismatch: flag(
    'allow-config-mismatch',
    "measure although the qmax's fingerprint differs from the endpoint's (warns; recorded)",
  ),
  path: choice(
    'path',
    '<path>',
    ['instance', 'zero', 'warm', 'cold'] as const,
    "the scale-out timed: one more instance (a variant); for an inference component, its wake from zero copies (the plan's wake rule deployed, the component idle at 0 copies; nothing is frozen), one more copy onto an instance with room (warm) or one needing a new instance (cold; the copy count is put back after)",
    { defaultText: 'instance', action: false },
  ),
  clientRetry: flag(
    'client-retry',
    "with --path zero: the probe retries the no-capacity error with the config's client_retry_attempts x client_retry_backoff_s (the retries are counted apart)",
    { action: false },
  ),
  promptsFile: LOAD_BODY_OPTIONS.promptsFile,
  ...REQUEST_SHAPE_OPTIONS,
  ...FREEZE_OPTIONS,
  dryRun: flag(
    'dry-run',
    "read what a run would act on (the qmax, the endpoint's capacity, scaling flags and journals, the quota, the alarms) and print what it would freeze, request and restore; no call that changes anything",
    { action: false },
  ),
} as const satisfies OptionTable;
