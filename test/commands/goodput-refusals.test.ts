/**
 * Bad input to `scalegate goodput` is refused before anything is measured or written: exit 2, a
 * message that names the flag (or the action input) and the fix, no stack trace, no file. And the
 * dry run prints the schedule and its cost without any AWS client.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOptionInputs } from '../../src/action/inputs.js';
import type { GoodputSchedule } from '../../src/analysis/goodput.js';
import { resolveGoodput, runGoodput } from '../../src/commands/goodput.js';
import { inferenceComponentConfigSchema, type ModelConfig, parseConfig } from '../../src/model/index.js';
import { GOODPUT_OPTIONS } from '../../src/options/goodput.js';
import { runCli } from '../helpers/cli.js';
import { configFile as icConfigFile, MODEL, modelConfig } from './local-apply-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-refusals-'));
const configFile = join(dir, 'scalegate.config.json');
const configText = JSON.stringify({
  models: {
    'test-tts': {
      endpoint: 'speech-test',
      region: 'us-east-1',
      instance_type: 'ml.g5.xlarge',
      image_uri:
        '123456789012.dkr.ecr.us-east-1.amazonaws.com/test@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
      slo_ms: 500,
      surge_ratio: 1.25,
      peak_rps: 100,
      instance_hourly_usd: 1.5,
    },
  },
});
writeFileSync(configFile, configText);

async function refused(args: string[], pattern: RegExp): Promise<void> {
  const out = join(dir, `g-${Math.random().toString(36).slice(2)}.json`);
  const run = await runCli([
    'goodput',
    '--config',
    configFile,
    '--target',
    'http://127.0.0.1:9',
    '--out',
    out,
    ...args,
  ]);
  expect(run.exitCode, run.stderr).toBe(2);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(out)).toBe(false);
}

describe('goodput refuses bad input (exit 2, the flag named, nothing written)', () => {
  it('a start rate of 0', () =>
    refused(['--start-rate', '0'], /--start-rate needs a positive number, got "0"/));
  it('a negative maximum rate', () => refused(['--max-rate', '-5'], /--max-rate needs a positive number/));
  it('a rate of 0 in a fixed ladder', () =>
    refused(
      ['--rates', '5,0,10'],
      /--rates needs comma-separated positive rates.*a rate of 0 or below sends nothing/,
    ));
  it('a negative rate in a fixed ladder', () =>
    refused(['--rates', '5,-1'], /--rates needs comma-separated positive rates/));
  it('start above the maximum', () =>
    refused(['--start-rate', '50', '--max-rate', '20'], /--min-rate <= --start-rate <= --max-rate/));
  it('a shard outside 0..n-1', () =>
    refused(['--rates', '5', '--shard', '2/2'], /--shard 2\/2: use i\/n with 0 <= i < n/));
  it('a shard without a fixed ladder', () =>
    refused(
      ['--shard', '0/2', '--start-at', new Date(Date.now() + 60_000).toISOString()],
      /--shard 0\/2: .*--rates/,
    ));
  it('--copies on a variant model (it pins an inference component)', () =>
    refused(
      ['--copies', '2'],
      /--copies 2 pins an inference component's copies: the model is not measured as one/,
    ));
  it('--copies above the component, and shards of a component (they would await the variant)', () => {
    const ic: ModelConfig = {
      ...modelConfig(),
      kind: 'inference-component',
      inference_component: inferenceComponentConfigSchema.parse({
        copies_per_instance: 2,
        cpu_cores: 2,
        memory_mb: 4096,
        min_copies: 1,
        max_copies: 4,
        instance_bounds: { min: 1, max: 2 },
      }),
    };
    const base = {
      modelName: MODEL,
      model: ic,
      configFile: icConfigFile,
      endpoint: 'speech-ic',
      variant: 'AllTraffic',
      region: 'local',
    };
    const now = Date.parse('2026-12-01T00:00:00Z');
    expect(() => resolveGoodput({ ...base, copies: 5 }, now)).toThrow(
      /--copies 5: more than the component's max_copies 4/,
    );
    expect(() =>
      resolveGoodput({ ...base, copies: 2, rates: [5], shard: '1/2', startAt: '2026-12-01T00:01:00Z' }, now),
    ).toThrow(/--shard 1\/2: a split run of an inference component is not supported/);
    expect(resolveGoodput({ ...base, copies: 2 }, now).component).toMatchObject({ copies: 2 });
  });
  it('a shard without a shared start', () => refused(['--shard', '1/2', '--rates', '5'], /same --start-at/));
  it('a start in the past', () =>
    refused(
      ['--rates', '5', '--start-at', '2020-01-01T00:00:00Z'],
      /--start-at 2020-01-01T00:00:00Z: lies .* in the past/,
    ));
  it('a settle as long as the hold', () =>
    refused(['--hold-s', '60', '--settle-s', '60'], /--settle-s 60 must be >= 0 and below --hold-s 60/));
  it('an overflow limit above 1', () =>
    refused(['--max-overflow-fraction', '2'], /--max-overflow-fraction needs a fraction between 0 and 1/));
  it('a resolution of 1 or more', () =>
    refused(['--resolution', '1.5'], /--resolution 1.5: a fraction between 0 and 1/));
  it('adaptive flags with a fixed ladder', () =>
    refused(
      ['--rates', '5,10', '--start-rate', '2'],
      /--start-rate steers the adaptive ladder; --rates measures exactly/,
    ));

  it('names the action input (not the flag) for the same mistakes in the action', () => {
    const env = (inputs: Record<string, string>) =>
      Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));
    expect(() => readOptionInputs(env({ 'start-rate': '0' }), GOODPUT_OPTIONS)).toThrow(
      /start-rate needs a positive number/,
    );
    try {
      readOptionInputs(env({ rates: '1,0' }), GOODPUT_OPTIONS);
      expect.unreachable();
    } catch (e) {
      expect((e as { messageFor(s: string): string }).messageFor('action')).toMatch(/^input rates: needs/);
    }
  });
});

describe('goodput --dry-run', () => {
  it('prints the schedule, worst-case duration, instance-minutes and cost, and makes no AWS call (no client given)', async () => {
    const model = parseConfig(configText, configFile).models['test-tts'] as Parameters<
      typeof runGoodput
    >[0]['model'];
    const result = await runGoodput(
      {
        modelName: 'test-tts',
        model,
        configFile,
        endpoint: 'speech-test',
        variant: 'AllTraffic',
        region: 'us-east-1',
        startRate: 5,
        maxRate: 40,
        holdS: 300,
        dryRun: true,
      },
      {},
    );
    const s = result.artifact as GoodputSchedule;
    expect(result.written).toEqual([]);
    expect(s.kind).toBe('goodput-schedule');
    expect(s.worst_case_rungs).toBeGreaterThan(3);
    expect(s.worst_case_duration_s).toBe(s.worst_case_rungs * 300);
    expect(s.estimated_cost_usd).toBeCloseTo((s.worst_case_duration_s / 3600) * 1.5, 6);
    expect(result.report).toMatch(/worst case: \d+ rungs/);
    expect(result.report).toMatch(/no AWS call was made/);
  });
});
