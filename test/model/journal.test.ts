import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  deleteThawJournal,
  listThawJournals,
  readThawJournal,
  stateDir,
  type ThawJournal,
  thawJournalPath,
  writeThawJournal,
} from '../../src/model/journal.js';

const journal = (endpoint: string): ThawJournal => ({
  schema_version: 1,
  kind: 'thaw-journal',
  endpoint,
  variant: 'AllTraffic',
  region: 'us-east-1',
  resource_id: `endpoint/${endpoint}/variant/AllTraffic`,
  scalable_target_registered: true,
  suspended_state: {
    dynamic_scaling_in_suspended: false,
    dynamic_scaling_out_suspended: false,
    scheduled_scaling_suspended: true,
  },
  min_capacity: 1,
  max_capacity: 4,
  desired_instance_count: 2,
  started_at: new Date(0).toISOString(),
  pid: 1234,
  hostname: 'runner',
  command: 'scalegate qmax --model m',
  run_id: 'abc',
});

describe('thaw journal (read by drift and the action post step)', () => {
  it('round-trips, lists every journal of the state directory, and deletes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-journal-'));
    expect(listThawJournals(join(dir, 'missing'))).toEqual([]);
    const file = writeThawJournal(journal('speech-a'), dir);
    writeThawJournal(journal('speech-b'), dir);
    expect(file).toBe(thawJournalPath('speech-a', dir));
    expect(readThawJournal('speech-a', dir)).toEqual(journal('speech-a'));
    expect(listThawJournals(dir).map((e) => e.journal.endpoint)).toEqual(['speech-a', 'speech-b']);
    deleteThawJournal('speech-a', dir);
    expect(readThawJournal('speech-a', dir)).toBeNull();
  });

  it('names the file and what to do when a journal is corrupt', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-journal-'));
    writeFileSync(thawJournalPath('speech-x', dir), '{"schema_version": 1}');
    expect(() => readThawJournal('speech-x', dir)).toThrow(
      /thaw-journal-speech-x\.json: not a valid thaw journal/,
    );
    writeFileSync(thawJournalPath('speech-y', dir), '{oops');
    expect(() => readThawJournal('speech-y', dir)).toThrow(/not valid JSON/);
  });

  it('lives in .scalegate by default, SCALEGATE_STATE_DIR overrides', () => {
    expect(stateDir({})).toBe(resolve('.scalegate'));
    expect(stateDir({ SCALEGATE_STATE_DIR: '/tmp/sg-state' })).toBe('/tmp/sg-state');
  });
});
