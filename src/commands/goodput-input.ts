/**
 * What `scalegate goodput` is given and how it is checked: every option resolved before anything
 * is measured or written (a mistake costs nothing, and names its flag).
 */
import type { GoodputSettings } from '../analysis/goodput.js';
import { parseShard, parseStartAt } from '../load/open/arrivals.js';
import { MAX_RATE_RUNGS, roundRate } from '../load/open/goodput-ladder.js';
import { chooseTransport } from '../load/transport/transports.js';
import { opt, usage } from '../model/errors.js';
import { checkOutputFile } from '../model/io.js';
import { GOODPUT_DEFAULTS, type GOODPUT_OPTIONS } from '../options/goodput.js';
import type { OptionValues } from '../options/spec.js';
import { checkFreezeTarget } from './freeze-guard.js';
import type { LoadCommandInput } from './load-input.js';
import { planRequests, type RequestPlan, resolveContinuity } from './load-start.js';
import { type PinnedComponent, pinnedComponent } from './qmax-component.js';

export { GOODPUT_DEFAULTS } from '../options/goodput.js';

/**
 * What goodput is given: what every load command is given, and the values of its option table
 * (src/options/goodput.ts: each option's default is declared there, once).
 */
export interface GoodputInput
  extends LoadCommandInput,
    Omit<OptionValues<typeof GOODPUT_OPTIONS>, keyof LoadCommandInput> {}

const isPositiveInt = (n: number): boolean => Number.isInteger(n) && n > 0;

/** Every option checked before anything is measured or written: a mistake costs nothing. */
/** The settings, with the request shape and the bodies it sends. */
export interface ResolvedGoodput extends GoodputSettings {
  request: RequestPlan;
  underrunSloMs: number | null;
  clientBufferMs: number;
  /** An inference component's copies pinned for the run (`--copies`, default 1); null: a variant. */
  component: PinnedComponent | null;
}

export function resolveGoodput(input: GoodputInput, nowMs: number): ResolvedGoodput {
  const d = GOODPUT_DEFAULTS;
  checkFreezeTarget(input);
  const { kind: transport, targetUrl } = chooseTransport('goodput', input);
  const sloMs = input.sloMs ?? input.model.slo_ms;
  if (!(sloMs > 0)) throw usage`${opt('slo-ms')} must be positive.`;
  const positive = (v: number | undefined, name: string) => {
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) {
      throw usage`${opt(name, String(v))}: the arrival rate must be a positive number of requests per second.`;
    }
  };
  positive(input.startRate, 'start-rate');
  positive(input.maxRate, 'max-rate');
  positive(input.minRate, 'min-rate');
  const rates = input.rates ? [...input.rates] : null;
  if (rates) {
    if (rates.length === 0) throw usage`${opt('rates')}: give at least one rate.`;
    for (const r of rates) positive(r, 'rates');
    if (rates.length > MAX_RATE_RUNGS) throw usage`${opt('rates')}: at most ${MAX_RATE_RUNGS} rates.`;
    if (new Set(rates).size !== rates.length) throw usage`${opt('rates')}: each rate at most once.`;
    for (const [flag, given] of [
      ['start-rate', input.startRate],
      ['max-rate', input.maxRate],
      ['min-rate', input.minRate],
      ['resolution', input.resolution],
    ] as const) {
      if (given !== undefined) {
        throw usage`${opt(flag)} steers the adaptive ladder; ${opt('rates')} measures exactly the rates given.`;
      }
    }
  }
  const startRate = input.startRate ?? d.startRate;
  const maxRate = input.maxRate ?? d.maxRate;
  const minRate = input.minRate ?? startRate / 16;
  if (!rates && !(minRate <= startRate && startRate <= maxRate)) {
    throw usage`goodput: the rates must satisfy ${opt('min-rate')} <= ${opt('start-rate')} <= ${opt('max-rate')} (got ${minRate}, ${startRate}, ${maxRate}).`;
  }
  const resolution = input.resolution ?? d.resolution;
  if (!(resolution > 0 && resolution < 1)) {
    throw usage`${opt('resolution', String(resolution))}: a fraction between 0 and 1 (0.05: lambda_max known to 5 %).`;
  }
  const holdS = input.holdS ?? d.holdS;
  const settleS = input.settleS ?? d.settleS;
  if (!(holdS > 0)) throw usage`${opt('hold-s')} must be positive.`;
  if (!(settleS >= 0 && settleS < holdS)) {
    throw usage`${opt('settle-s', settleS)} must be >= 0 and below ${opt('hold-s', holdS)}: the rest of the hold is the measure window.`;
  }
  // 1 s histogram windows (at most 600 a rung, whole seconds): the windows the decision was
  // calibrated on; its batches and the autocorrelation time tau are cut along them.
  const windowMs = 1000 * Math.max(1, Math.floor(holdS / 600));
  const measureWindows = Math.floor((holdS * 1000) / windowMs) - Math.ceil((settleS * 1000) / windowMs);
  if (measureWindows < 5) {
    throw usage`${opt('hold-s', holdS)} with ${opt('settle-s', settleS)} leaves fewer than 5 whole ${windowMs / 1000} s windows to measure: the decision cuts the window into 5 batches.`;
  }
  const seed = input.seed ?? d.seed;
  if (!(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31)) {
    throw usage`${opt('seed', seed)}: a non-negative integer below 2^31.`;
  }
  const fraction = (v: number | undefined, fallback: number, name: string): number => {
    const f = v ?? fallback;
    if (!(f >= 0 && f <= 1)) throw usage`${opt(name, String(f))}: a fraction between 0 and 1 (0.01 = 1 %).`;
    return f;
  };
  const maxOutstanding = input.maxOutstanding ?? d.maxOutstanding;
  if (!isPositiveInt(maxOutstanding)) throw usage`${opt('max-outstanding')} must be a positive integer.`;
  const requestTimeoutS = input.requestTimeoutS ?? input.model.invocation_ceiling_s;
  if (!(requestTimeoutS > 0)) throw usage`${opt('request-timeout-s')} must be positive.`;
  const minSamples = input.minSamples ?? d.minSamples;
  if (!isPositiveInt(minSamples)) throw usage`${opt('min-samples')} must be a positive integer.`;
  const shard = input.shard !== undefined ? parseShard(input.shard) : null;
  if (shard && shard.count > 1) {
    if (!rates) {
      throw usage`${opt('shard', input.shard)}: shards must agree on every rung in advance: give the rates with ${opt('rates')} (a fixed ladder), the same on every shard.`;
    }
    if (input.startAt === undefined) {
      throw usage`${opt('shard', input.shard)}: give every shard the same ${opt('start-at')} (an ISO time a few seconds ahead) so their schedules line up.`;
    }
  }
  // An inference component is pinned at --copies exactly as qmax pins it; --copies on a variant is refused.
  const component = pinnedComponent(input);
  if (component && shard && shard.count > 1) {
    throw usage`${opt('shard', input.shard)}: a split run of an inference component is not supported (the other shards would await a variant's freeze, not the component's); run one process with ${opt('copies', String(component.copies))}.`;
  }
  const startAtMs = input.startAt !== undefined ? parseStartAt(input.startAt, nowMs) : null;
  const rungGapS = input.rungGapS ?? d.rungGapS;
  if (!(rungGapS >= 0)) throw usage`${opt('rung-gap-s')} must be >= 0.`;
  if (input.outFile !== undefined) checkOutputFile(input.outFile);
  const request = planRequests(input, input.model);
  const prompts = request.prompts;
  return {
    ...resolveContinuity(input, input.model),
    request,
    transport,
    sloMs,
    mode: rates ? 'fixed' : 'adaptive',
    rates: rates ? rates.map(roundRate) : null,
    startRate: roundRate(startRate),
    scout: !rates && input.startRate === undefined,
    maxRate,
    minRate,
    resolution,
    holdS,
    settleS,
    seed,
    windowMs,
    maxOutstanding,
    limits: {
      maxOverflowFraction: fraction(
        input.maxOverflowFraction,
        d.maxOverflowFraction,
        'max-overflow-fraction',
      ),
      maxErrorFraction: fraction(input.maxErrorFraction, d.maxErrorFraction, 'max-error-fraction'),
    },
    requestTimeoutS,
    minSamples,
    prompts,
    targetUrl,
    shard,
    startAtMs,
    rungGapS,
    component,
  };
}
