/**
 * Discovery of an inference-component model's measurements: a Q_max of one copy on one packing
 * says nothing of another packing, nor of the model as a variant, so discovery takes only the
 * measurements whose packing is the config's, and says of each one it passes over which packing
 * it was measured on (the instance type being the same, naming only that would explain nothing).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverMeasurements } from '../../src/commands/discover.js';
import { icFingerprintOf, inferenceComponentConfigSchema, writeArtifact } from '../../src/model/index.js';
import { kokoroMeasurements, kokoroModel } from '../infra/fixtures.js';
import { IC_PACKING, icModel } from '../infra/ic-fixtures.js';

/** A directory with the anchor qmax and ttotal measured as a variant and as the component (one copy per instance). */
function measuredBoth(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-discover-ic-'));
  const variant = kokoroMeasurements();
  const packed = kokoroMeasurements();
  const ic = icFingerprintOf(inferenceComponentConfigSchema.parse(IC_PACKING));
  packed.qmax.fingerprint = { ...packed.qmax.fingerprint, inference_component: ic };
  if (packed.ttotal) packed.ttotal.fingerprint = { ...packed.ttotal.fingerprint, inference_component: ic };
  // The variant's measurement is the newer one: discovery must not take it for the component.
  variant.qmax.measured_at = '2026-09-02T00:00:00.000Z';
  packed.qmax.measured_at = '2026-09-01T00:00:00.000Z';
  writeArtifact('qmax', join(dir, 'qmax-kokoro-82m-variant.json'), variant.qmax);
  writeArtifact('qmax', join(dir, 'qmax-kokoro-82m-ic.json'), packed.qmax);
  if (variant.ttotal) writeArtifact('ttotal', join(dir, 'ttotal-kokoro-82m-variant.json'), variant.ttotal);
  if (packed.ttotal) writeArtifact('ttotal', join(dir, 'ttotal-kokoro-82m-ic.json'), packed.ttotal);
  return dir;
}

describe('discovery of an inference-component model', () => {
  const dir = measuredBoth();

  it("takes the component's measurements (its packing), not the newer variant ones, and names the packing it skipped", () => {
    const r = discoverMeasurements(dir, 'kokoro-82m', icModel());
    expect(r.qmax?.file).toBe(join(dir, 'qmax-kokoro-82m-ic.json'));
    expect(r.ttotal?.file).toBe(join(dir, 'ttotal-kokoro-82m-ic.json'));
    expect(r.notes).toEqual([
      expect.stringMatching(
        /^skipped .*qmax-kokoro-82m-variant\.json: .*\(inference_component: variant \(no inference component\) measured, 1 copies\/instance, 1 accelerators, 0 vCPU, 8192 MiB per copy deployed\)$/,
      ),
    ]);
  });

  it('takes none for another packing than was measured', () => {
    const r = discoverMeasurements(dir, 'kokoro-82m', icModel({ memory_mb: 16384 }));
    expect(r.qmax).toBeNull();
    expect(r.notes).toHaveLength(2);
  });

  it("takes the variant's measurements for the model declared as a variant", () => {
    const r = discoverMeasurements(dir, 'kokoro-82m', kokoroModel());
    expect(r.qmax?.file).toBe(join(dir, 'qmax-kokoro-82m-variant.json'));
  });
});
