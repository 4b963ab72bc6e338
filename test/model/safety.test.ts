/**
 * Inputs cannot speak to the runner, escape the state directory, or hang the arithmetic: what
 * the schemas in src/model refuse, each refusal a usage error (exit 2) naming the field.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlan } from '../../src/commands/plan.js';
import {
  checkOutputFile,
  isUsageError,
  MAX_CLOCK_SKEW_MS,
  parseArtifact,
  parseConfig,
  readArtifact,
  thawJournalFileName,
  UsageError,
  writeArtifact,
} from '../../src/model/index.js';
import { parseThawJournal, thawJournalPath } from '../../src/model/journal.js';
import { anchorQmaxFile, anchorTtotalFile, configFile } from '../helpers/anchor.js';

const dir = () => mkdtempSync(join(tmpdir(), 'scalegate-safety-'));
const anchorQmax = () => readArtifact('qmax', anchorQmaxFile);
const kokoro = () => {
  const config = parseConfig(readFileSync(configFile, 'utf8'), configFile);
  return config.models['kokoro-82m'] as NonNullable<(typeof config.models)[string]>;
};

/** The error a call throws (fails the test when it does not throw). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a refusal, nothing was thrown');
}

function writeQmax(patch: (q: Record<string, unknown> & { steps: Record<string, unknown>[] }) => void) {
  const q = structuredClone(anchorQmax()) as unknown as Record<string, unknown> & {
    steps: Record<string, unknown>[];
  };
  patch(q);
  const file = join(dir(), 'qmax.json');
  writeFileSync(file, JSON.stringify(q));
  return file;
}

const planWith = (qmaxFile: string, overrides: Partial<Parameters<typeof runPlan>[0]> = {}) =>
  runPlan(
    {
      modelName: 'kokoro-82m',
      model: kokoro(),
      qmaxFile,
      ttotalFile: anchorTtotalFile,
      ...overrides,
      allowConfigMismatch: false,
      outFile: join(dir(), 'plan.json'),
    },
    { version: 'test' },
  );

describe('artifact strings cannot carry workflow commands or bidi tricks', () => {
  it('refuses a run_id with a newline and `::add-mask::` (a workflow command on its own line)', () => {
    const file = writeQmax((q) => {
      q.run_id = 'b8fa8ef48043\n::add-mask::secret';
    });
    const e = thrown(() => readArtifact('qmax', file));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toMatch(/run_id: contains a control or bidi character \(U\+000A\)/);
  });

  it('refuses a bidi override in a model name (text that reads differently from what it is)', () => {
    const file = writeQmax((q) => {
      q.model_name = 'kokoro\u202e28-';
    });
    expect(thrown(() => readArtifact('qmax', file)).message).toMatch(/model_name: .*U\+202E/);
  });

  it('refuses a control character in the config (container_env value) with the file name', () => {
    const text = JSON.stringify({
      models: { m: { ...kokoro(), container_env: { VOICE: 'a\u0007b' } } },
    });
    const e = thrown(() => parseConfig(text, 'my.config.json'));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toMatch(
      /my\.config\.json: invalid scalegate config:[\s\S]*container_env\.VOICE: contains a control/,
    );
  });
});

describe('endpoint and variant names are SageMaker names, never paths', () => {
  it('a crafted endpoint name (../../x) never becomes a thaw-journal path outside the state directory', () => {
    const root = dir();
    const state = join(root, '.scalegate');
    mkdirSync(state);
    const victim = join(root, 'x.json');
    writeFileSync(victim, 'keep me');
    const e = thrown(() => thawJournalPath('../../x', state));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toContain('not a SageMaker endpoint name');
    expect(() => thawJournalFileName('a/b')).toThrow(UsageError);
    expect(existsSync(victim)).toBe(true);
    expect(thawJournalPath('speech-kokoro-82m-calibration', state)).toBe(
      join(state, 'thaw-journal-speech-kokoro-82m-calibration.json'),
    );
  });

  it('refuses a config whose variant or endpoint is not a SageMaker name', () => {
    for (const patch of [
      { variant: '../AllTraffic' },
      { endpoint: 'speech.kokoro' },
      { endpoint: `a${'b'.repeat(51)}` },
    ]) {
      const text = JSON.stringify({ models: { m: { ...kokoro(), ...patch } } });
      expect(() => parseConfig(text, 'c.json'), JSON.stringify(patch)).toThrow(
        /c\.json: invalid scalegate config/,
      );
    }
  });

  it('refuses a thaw journal whose resource_id is not the one its endpoint and variant name', () => {
    const journal = {
      schema_version: 1,
      kind: 'thaw-journal',
      endpoint: 'speech-kokoro-82m-calibration',
      variant: 'AllTraffic',
      region: 'us-east-1',
      resource_id: 'endpoint/speech-kokoro-82m/variant/AllTraffic',
      scalable_target_registered: true,
      suspended_state: {
        dynamic_scaling_in_suspended: false,
        dynamic_scaling_out_suspended: false,
        scheduled_scaling_suspended: false,
      },
      min_capacity: 1,
      max_capacity: 2,
      desired_instance_count: 1,
      started_at: '2026-08-04T14:44:21.706Z',
      pid: 1234,
      hostname: null,
      command: 'scalegate qmax',
      run_id: null,
    };
    expect(() => parseThawJournal(journal, 'j.json')).toThrow(
      /resource_id must be endpoint\/<endpoint>\/variant/,
    );
    expect(() => parseThawJournal({ ...journal, endpoint: '../x' }, 'j.json')).toThrow(/endpoint/);
  });
});

describe('numbers are bounded: no Infinity, no hang, absurd values are usage errors', () => {
  it('refuses achieved_rps 1e308 (which made plan loop forever) as a usage error naming the field', () => {
    const file = writeQmax((q) => {
      for (const step of q.steps) step.achieved_rps = 1e308;
    });
    const e = thrown(() => planWith(file));
    expect(isUsageError(e)).toBe(true);
    expect((e as UsageError).exitCode).toBe(2);
    expect(e.message).toMatch(/steps\.0\.achieved_rps: achieved_rps above 1000000 is not plausible/);
  });

  it('plans (and ends) at the bounds themselves', () => {
    const file = writeQmax((q) => {
      for (const step of q.steps) step.achieved_rps = 1e6;
    });
    const result = planWith(file, { peakRps: 1e6 });
    // Held at lambda_safe (below the 1e6 requests/s it can serve), a million needs a few instances.
    const lambda = result.artifact?.derived.lambda_safe_rps as number;
    expect(lambda).toBeGreaterThan(0);
    expect(lambda).toBeLessThan(1e6);
    expect(result.artifact?.deployable.max_instances).toBe(Math.ceil(1e6 / lambda));
  });

  it('makes absurd but schema-valid inputs a usage error (exit 2), not a failed write (exit 1)', () => {
    // 0.001 requests/s per instance and a peak of a million: a billion instances.
    const file = writeQmax((q) => {
      for (const step of q.steps) step.achieved_rps = 0.001;
    });
    const e = thrown(() => planWith(file, { peakRps: 1e6 }));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toMatch(/outside what a deployment can hold[\s\S]*max_instances/);
    expect(e.message).toContain('peak 1000000 rps');
  });
});

describe('recorded times are not in the future', () => {
  it('refuses a measured_at in the future (it would win discovery forever)', () => {
    const q = anchorQmax();
    const future = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    const e = thrown(() => parseArtifact('qmax', { ...q, measured_at: future }, 'q.json'));
    expect(e.message).toMatch(/q\.json: invalid qmax artifact:[\s\S]*measured_at: .* is in the future/);
  });

  it('accepts a measured_at slightly ahead of this clock (another machine’s skew)', () => {
    const q = anchorQmax();
    const skewed = new Date(Date.now() + MAX_CLOCK_SKEW_MS / 2).toISOString();
    expect(parseArtifact('qmax', { ...q, measured_at: skewed }, 'q.json').measured_at).toBe(skewed);
  });
});

describe('--out naming a directory', () => {
  it('is a usage error naming the flag, for a trailing slash and for an existing directory, and writes nothing', () => {
    const root = dir();
    const plan = planWith(writeQmax(() => {})).artifact;
    if (!plan) throw new Error('no plan');
    for (const out of [`${join(root, 'newdir')}/`, root]) {
      const e = thrown(() => writeArtifact('plan', out, plan));
      expect(isUsageError(e)).toBe(true);
      expect(e.message).toMatch(/^--out ".*": names a directory, not a file/);
    }
    expect(existsSync(join(root, 'newdir'))).toBe(false);
    expect(() => checkOutputFile(`${root}/`, '--qmax-out')).toThrow(/^--qmax-out /);
    expect(checkOutputFile(join(root, 'plan.json'))).toBe(join(root, 'plan.json'));
  });
});
