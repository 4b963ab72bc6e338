/**
 * A model's candidate instance types (`scalegate compare`): candidate 0 is the model itself,
 * candidate n >= 1 is its `candidates[n - 1]`, measured on its own calibration endpoint. Shared by
 * the deploy command, the CDK app, compare and the calibrate workflow's select script (which
 * spells the same names in JavaScript).
 */
import type { ModelConfig } from './config.js';
import { opt, usage } from './errors.js';

/** The calibration endpoint of candidate `n`: `<endpoint>-calibration` for 0, `<endpoint>-cal-<n>` otherwise. */
export const candidateCalibrationEndpoint = (endpoint: string, n: number): string =>
  n === 0 ? `${endpoint}-calibration` : `${endpoint}-cal-${n}`;

/**
 * The calibration stack of candidate `n`: `scalegate-<model>-calibration` for 0 (as `stackNames`),
 * `scalegate-<model>-cal-<n>-calibration` otherwise (within the calibration stack pattern
 * `scalegate-*-calibration` the calibration role may write).
 */
export const candidateCalibrationStack = (modelName: string, n: number): string =>
  n === 0 ? `scalegate-${modelName}-calibration` : `scalegate-${modelName}-cal-${n}-calibration`;

/** Refuses (exit 2) a candidate index the model does not declare. */
export function checkCandidateIndex(
  modelName: string,
  model: Pick<ModelConfig, 'candidates'>,
  n: number,
): void {
  if (!Number.isInteger(n) || n < 0 || n > model.candidates.length) {
    const declared =
      model.candidates.length === 0
        ? 'it declares no candidates[] (only candidate 0, its own instance_type)'
        : `it declares candidates 1 to ${model.candidates.length} (0 is its own instance_type)`;
    throw usage`${opt('candidate', String(n))}: model ${modelName} has no candidate ${String(n)}: ${declared}.`;
  }
}

/**
 * The model as candidate `n` is measured: its instance type, and the candidate's container
 * environment over the model's (the candidate's own keys win). The stated price and quota are an
 * instance type's, so a candidate has only its own. Candidate 0 is the model unchanged.
 */
export function candidateModel(model: ModelConfig, n: number): ModelConfig {
  if (n === 0) return model;
  const c = model.candidates[n - 1];
  if (!c) throw new RangeError(`no candidate ${n} (the model declares ${model.candidates.length})`);
  const { instance_hourly_usd: _price, instance_quota: _quota, ...rest } = model;
  return {
    ...rest,
    instance_type: c.instance_type,
    container_env: { ...model.container_env, ...c.container_env },
    ...(c.instance_hourly_usd === undefined ? {} : { instance_hourly_usd: c.instance_hourly_usd }),
    ...(c.instance_quota === undefined ? {} : { instance_quota: c.instance_quota }),
  };
}
