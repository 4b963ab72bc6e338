/**
 * The action's inputs, read the way the runner passes them (`INPUT_<NAME>` with the name
 * upper-cased and hyphens kept) and validated into the same values the CLI's flags produce.
 * A bad input is a UsageError naming the input, so the step exits 2 with a message that says
 * which `with:` key to fix.
 */
import { CONFIG_FILE, DEFAULT_ARTIFACTS_DIR, UsageError } from '../model/index.js';

export const ACTION_COMMANDS = ['drift', 'qmax', 'ttotal', 'plan', 'validate', 'thaw', 'gate'] as const;
export type ActionCommand = (typeof ACTION_COMMANDS)[number];

export type Env = Record<string, string | undefined>;

/** What core.getInput does, over an explicit environment (tests and the runner alike). */
export function rawInput(env: Env, name: string): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

const optional = (env: Env, name: string): string | undefined => {
  const value = rawInput(env, name);
  return value === '' ? undefined : value;
};

function numberInput(
  env: Env,
  name: string,
  check: (n: number) => boolean,
  what: string,
): number | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) {
    throw new UsageError(
      `input ${name}: needs ${what}, got "${value}". Fix \`with: ${name}:\` in the workflow.`,
    );
  }
  return n;
}

const positive = (env: Env, name: string) => numberInput(env, name, (n) => n > 0, 'a positive number');
const nonNegative = (env: Env, name: string) => numberInput(env, name, (n) => n >= 0, 'a number >= 0');
const positiveInt = (env: Env, name: string) =>
  numberInput(env, name, (n) => Number.isInteger(n) && n > 0, 'a positive integer');
const anyNumber = (env: Env, name: string) => numberInput(env, name, Number.isFinite, 'a number');

/** YAML 1.2 core-schema booleans, as core.getBooleanInput accepts them; empty -> `fallback`. */
function booleanInput(env: Env, name: string, fallback: boolean): boolean {
  const value = optional(env, name);
  if (value === undefined) return fallback;
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new UsageError(`input ${name}: needs true or false, got "${value}".`);
}

function choiceInput<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const value = optional(env, name) ?? fallback;
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`input ${name}: one of ${choices.join(', ')}, got "${value}".`);
  }
  return value as T;
}

export interface ActionInputs {
  command: ActionCommand;
  model: string | undefined;
  config: string;
  artifactsDir: string;
  endpoint: string | undefined;
  region: string | undefined;
  qmax: string | undefined;
  ttotal: string | undefined;
  plan: string | undefined;
  out: string | undefined;
  /** `auto` (the default) means: on for pull_request events, off otherwise. */
  comment: 'auto' | boolean;
  githubToken: string | undefined;
  failOn: 'stop' | 'warn';
  allowConfigMismatch: boolean;
  // plan
  assumeTTotal: number | undefined;
  peakRps: number | undefined;
  peakStreams: number | undefined;
  troughRps: number | undefined;
  troughStreams: number | undefined;
  surgeRatio: number | undefined;
  sloMs: number | undefined;
  minInstancesFloor: number | undefined;
  // qmax
  transport: string | undefined;
  ladder: 'adaptive' | 'fixed' | undefined;
  rungs: number[] | undefined;
  maxConcurrency: number | undefined;
  resolution: number | undefined;
  holdS: number | undefined;
  measureS: number | undefined;
  settleS: number | undefined;
  runs: number | undefined;
  cloudwatch: boolean;
  minSamples: number | undefined;
  freezeTimeoutS: number | undefined;
  dryRun: boolean;
  // ttotal
  probeConcurrency: number | undefined;
  maxWaitS: number | undefined;
  pollS: number | undefined;
}

function rungsInput(env: Env, name: string): number[] | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  const parts = value.split(',').map((p) => p.trim());
  const rungs = parts.map(Number);
  if (parts.some((p) => p === '') || rungs.some((n) => !Number.isInteger(n) || n <= 0)) {
    throw new UsageError(
      `input ${name}: comma-separated positive integers (e.g. 1,5,10,20), got "${value}".`,
    );
  }
  return rungs;
}

export function readInputs(env: Env): ActionInputs {
  const command = optional(env, 'command');
  if (command === undefined) {
    throw new UsageError(`input command: required (one of ${ACTION_COMMANDS.join(', ')}).`);
  }
  if (!(ACTION_COMMANDS as readonly string[]).includes(command)) {
    throw new UsageError(`input command: one of ${ACTION_COMMANDS.join(', ')}, got "${command}".`);
  }
  const commentRaw = optional(env, 'comment') ?? 'auto';
  const comment = commentRaw === 'auto' ? 'auto' : booleanInput(env, 'comment', false);
  return {
    command: command as ActionCommand,
    model: optional(env, 'model'),
    config: optional(env, 'config') ?? CONFIG_FILE,
    artifactsDir: optional(env, 'artifacts-dir') ?? DEFAULT_ARTIFACTS_DIR,
    endpoint: optional(env, 'endpoint'),
    region: optional(env, 'region'),
    qmax: optional(env, 'qmax'),
    ttotal: optional(env, 'ttotal'),
    plan: optional(env, 'plan'),
    out: optional(env, 'out'),
    comment,
    githubToken: optional(env, 'github-token'),
    failOn: choiceInput(env, 'fail-on', ['stop', 'warn'] as const, 'stop'),
    allowConfigMismatch: booleanInput(env, 'allow-config-mismatch', false),
    assumeTTotal: positive(env, 'assume-t-total'),
    peakRps: positive(env, 'peak-rps'),
    peakStreams: positive(env, 'peak-streams'),
    troughRps: nonNegative(env, 'trough-rps'),
    troughStreams: nonNegative(env, 'trough-streams'),
    surgeRatio: anyNumber(env, 'surge-ratio'),
    sloMs: positive(env, 'slo-ms'),
    minInstancesFloor: positiveInt(env, 'min-instances-floor'),
    transport: optional(env, 'transport'),
    ladder:
      optional(env, 'ladder') === undefined
        ? undefined
        : choiceInput(env, 'ladder', ['adaptive', 'fixed'] as const, 'adaptive'),
    rungs: rungsInput(env, 'rungs'),
    maxConcurrency: positiveInt(env, 'max-concurrency'),
    resolution: positiveInt(env, 'resolution'),
    holdS: positive(env, 'hold-s'),
    measureS: positive(env, 'measure-s'),
    settleS: nonNegative(env, 'settle-s'),
    runs: positiveInt(env, 'runs'),
    cloudwatch: booleanInput(env, 'cloudwatch', true),
    minSamples: positiveInt(env, 'min-samples'),
    freezeTimeoutS: positive(env, 'freeze-timeout-s'),
    dryRun: booleanInput(env, 'dry-run', false),
    probeConcurrency: positiveInt(env, 'probe-concurrency'),
    maxWaitS: positive(env, 'max-wait-s'),
    pollS: positive(env, 'poll-s'),
  };
}

/** Pull-request events, where `comment: auto` comments. */
export const PULL_REQUEST_EVENTS: ReadonlySet<string> = new Set(['pull_request', 'pull_request_target']);

export function commentEnabled(
  inputs: Pick<ActionInputs, 'comment'>,
  eventName: string | undefined,
): boolean {
  if (inputs.comment === 'auto') return eventName !== undefined && PULL_REQUEST_EVENTS.has(eventName);
  return inputs.comment;
}
