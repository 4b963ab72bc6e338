import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseArtifact,
  readArtifact,
  SCHEMA_VERSION,
  writeArtifact,
  writeFileAtomic,
} from '../../src/model/index.js';
import { anchorQmaxFile, anchorTtotalFile } from '../helpers/anchor.js';

describe('artifact reading', () => {
  it('reads the legacy qmax format into the current one, keeping its measurements', () => {
    const qmax = readArtifact('qmax', anchorQmaxFile);
    expect(qmax.schema_version).toBe(SCHEMA_VERSION);
    expect(qmax.q_max).toBe(50);
    expect(qmax.q_max_upper_bound).toBe(60);
    expect(qmax.transport).toBe('response-stream');
    expect(qmax.fingerprint.region).toBeNull();
    expect(qmax.steps).toHaveLength(8);
    expect(qmax.steps.every((s) => s.cw_ratio === 1)).toBe(true);
    expect(qmax.provenance.origin).toBe('legacy');
  });

  it('reads the legacy ttotal format, marking its policy lag as a bound', () => {
    const ttotal = readArtifact('ttotal', anchorTtotalFile);
    expect(ttotal.t_total_s).toBeCloseTo(260.248496, 6);
    expect(ttotal.policy_lag_s).toBe(60);
    expect(ttotal.policy_lag_bounded).toBe(true);
    expect(ttotal.timeline.map((t) => t.stage)).toContain('instance_logging');
  });

  it('round-trips a current artifact through write and read unchanged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-io-'));
    const qmax = readArtifact('qmax', anchorQmaxFile);
    const file = join(dir, 'nested', 'qmax.json');
    writeArtifact('qmax', file, qmax);
    expect(readArtifact('qmax', file)).toEqual(qmax);
  });

  it('refuses an artifact of the wrong kind, naming both kinds', () => {
    const qmax = readArtifact('qmax', anchorQmaxFile);
    expect(() => parseArtifact('ttotal', qmax, 'x.json')).toThrow(
      /x\.json: is a "qmax" artifact where a ttotal artifact is needed/,
    );
  });

  it('refuses a legacy file for kinds that never had a legacy format', () => {
    expect(() => parseArtifact('plan', { q_max: 1 }, 'p.json')).toThrow(/p\.json.*schema_version: required/s);
  });

  it('refuses to write an invalid artifact rather than leave a file no reader accepts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-io-'));
    const qmax = { ...readArtifact('qmax', anchorQmaxFile), q_max: -1 };
    const file = join(dir, 'qmax.json');
    expect(() => writeArtifact('qmax', file, qmax)).toThrow(/refusing to write an invalid qmax artifact/);
    expect(existsSync(file)).toBe(false);
  });
});

describe('atomic writes', () => {
  it('replaces a file whole and leaves no temp file behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-atomic-'));
    const file = join(dir, 'a.json');
    writeFileSync(file, 'old');
    writeFileAtomic(file, 'new content');
    expect(readFileSync(file, 'utf8')).toBe('new content');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('leaves the previous file intact and no temp file when the write fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-atomic-'));
    const file = join(dir, 'a.json');
    writeFileSync(file, 'old');
    // A directory where the rename target should be a file makes the final step fail.
    expect(() => writeFileAtomic(join(dir, 'a.json', 'child'), 'x')).toThrow();
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });
});
