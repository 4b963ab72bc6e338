/** `scalegate merge` is the one merge verb: drill shards merge exactly as `scalegate drill merge` merges them. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDrillMerge } from '../../src/commands/drill.js';
import { runMerge } from '../../src/commands/merge.js';
import { writeArtifact } from '../../src/model/io.js';
import { drillData, observerWith, windowsWith } from '../helpers/drill-data.js';

describe('merge, given drill shard files', () => {
  it('writes what drill merge writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-merge-kinds-'));
    const shard = join(dir, 'drill.shard-0-of-1.json');
    writeArtifact('drill-shard', shard, {
      ...drillData({ windows: windowsWith(), observer: observerWith({ breachS: 20 }) }),
      kind: 'drill-shard',
      shard: { index: 0, count: 1 },
    });
    const viaMerge = runMerge({ files: [shard], outFile: join(dir, 'a.json') });
    const viaDrill = runDrillMerge({ files: [shard], outFile: join(dir, 'b.json') });
    expect(viaMerge.artifact).toEqual(viaDrill.artifact);
    expect(viaMerge.exitCode).toBe(viaDrill.exitCode);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe(readFileSync(join(dir, 'b.json'), 'utf8'));
  });
});
