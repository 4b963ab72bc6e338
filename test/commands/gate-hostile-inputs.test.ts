/**
 * The release gate reads files a pull request wrote. Whatever sits where a proof is expected (a
 * link to /dev/zero, a link to a system file, a drill whose histogram is a decompression bomb),
 * the gate neither hangs nor crashes nor prints the file: the proof is refused, named, and the gate
 * exits 1 with the reason in its report.
 */
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGate } from '../../src/commands/gate.js';
import { drillFileName, type ModelConfig, validateFileName } from '../../src/model/index.js';
import { inflateBomb } from '../helpers/hdr-bomb.js';
import { artifactsDirWith, drillOf, kokoroModel, kokoroPlan, measurementsOf } from '../infra/fixtures.js';

const noHashing = () => {
  throw new Error('an image_uri model must not hash a directory');
};

const gate = (dir: string, model: ModelConfig) =>
  runGate(
    {
      modelName: 'kokoro-82m',
      model,
      configFile: join(dir, 'scalegate.config.json'),
      planFile: join(dir, 'plan-kokoro-82m.json'),
      region: 'us-east-1',
      // What is judged here is reading the proofs; attestations are test/commands/gate-attested.test.ts's.
      offline: true,
    },
    { assetHash: noHashing },
  );

/**
 * The plan and its measurements, without a validate (the test puts its own file there), in a
 * directory made the working directory: the checkout the release workflow runs the gate in.
 */
const withoutValidate = () => {
  const plan = kokoroPlan();
  const dir = artifactsDirWith({
    'kokoro-82m': { plan, measurements: measurementsOf(plan), validate: null },
  });
  process.chdir(dir);
  return dir;
};

const before = process.cwd();
afterEach(() => process.chdir(before));

const checkOf = (result: Awaited<ReturnType<typeof gate>>, name: string) =>
  result.artifact?.checks.find((c) => c.check === name);

describe('the gate, given hostile files where its proofs go', () => {
  it('a validate that links to /dev/zero is refused as a link out of the tree (no endless read): exit 1', async () => {
    const dir = withoutValidate();
    symlinkSync('/dev/zero', join(dir, validateFileName('kokoro-82m')));
    const result = await gate(dir, kokoroModel());
    expect(result.exitCode).toBe(1);
    expect(checkOf(result, 'validated')?.ok).toBe(false);
    expect(checkOf(result, 'validated')?.detail).toContain(
      'resolves through a symbolic link to /dev/zero, outside the working tree',
    );
  });

  it('a validate that links to a system file is refused, and not one byte of it reaches the report', async () => {
    const dir = withoutValidate();
    const secret = join(mkdtempSync(join(tmpdir(), 'scalegate-secret-')), 'shadow');
    writeFileSync(secret, 'root:$6$saltsalt$hashhashhash:19000:0:99999:7:::\n');
    symlinkSync(secret, join(dir, validateFileName('kokoro-82m')));
    const result = await gate(dir, kokoroModel());
    expect(result.exitCode).toBe(1);
    expect(checkOf(result, 'validated')?.detail).toContain('outside the working tree');
    expect(result.report).not.toMatch(/root:|saltsalt|hashhash/);
    expect(JSON.stringify(result.artifact)).not.toMatch(/root:|saltsalt|hashhash/);
  });

  it('with require_drill, a drill whose histogram is a decompression bomb is unreadable, naming the field: exit 1', async () => {
    const plan = kokoroPlan();
    const dir = artifactsDirWith({ 'kokoro-82m': plan });
    const model = kokoroModel({ require_drill: true });
    const drill = JSON.parse(JSON.stringify(drillOf(plan)));
    drill.histograms.windows[4].ttfab_intended = inflateBomb(40 * 1024 * 1024);
    const file = join(dir, drillFileName('kokoro-82m', plan.fingerprint));
    writeFileSync(file, JSON.stringify(drill));
    const result = await gate(dir, model);
    expect(result.exitCode).toBe(1);
    const drilled = checkOf(result, 'drilled');
    expect(drilled?.ok).toBe(false);
    expect(drilled?.detail).toContain(file);
    expect(drilled?.detail).toContain('histograms.windows.4.ttfab_intended.data: inflates to more than');
  });
});
