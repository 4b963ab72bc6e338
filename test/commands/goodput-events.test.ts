/** `goodput --events FILE`: one JSON line per request of every rung, as qmax writes its own. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type GoodputInput, runGoodput } from '../../src/commands/goodput.js';
import { VirtualClock } from '../../src/load/clock.js';
import { type GoodputArtifact, parseConfig } from '../../src/model/index.js';
import { inSimulatedTime } from '../helpers/simulated-time.js';
import { simulatedServer } from '../load/fixtures/simulated-server.js';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-events-'));
const configFile = join(dir, 'scalegate.config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    models: {
      'test-tts': {
        endpoint: 'speech-test',
        region: 'us-east-1',
        instance_type: 'ml.g5.xlarge',
        image_uri:
          '123456789012.dkr.ecr.us-east-1.amazonaws.com/test@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        slo_ms: 800,
        surge_ratio: 1.25,
        peak_rps: 100,
      },
    },
  }),
);
const model = parseConfig(readFileSync(configFile, 'utf8'), configFile).models[
  'test-tts'
] as GoodputInput['model'];

describe('goodput --events', () => {
  it('writes one line per request of every rung, with its rung and rate', async () => {
    const clock = new VirtualClock();
    const server = simulatedServer({ clock, slots: 4, serviceMs: () => 100, firstAudioShare: 1 });
    const eventsFile = join(dir, 'events.jsonl');
    const result = await inSimulatedTime(
      clock,
      runGoodput(
        {
          modelName: 'test-tts',
          model,
          configFile,
          endpoint: 'speech-test',
          variant: 'AllTraffic',
          region: 'us-east-1',
          target: 'http://127.0.0.1:9',
          rates: [5, 10],
          holdS: 60,
          settleS: 10,
          outFile: join(dir, 'goodput.json'),
          eventsFile,
        },
        { createTransport: () => server, loadClock: clock },
      ),
    );
    const artifact = result.artifact as GoodputArtifact;
    expect(result.written).toEqual([join(dir, 'goodput.json'), eventsFile]);
    const lines = readFileSync(eventsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { rung_index: number; rate_rps: number; outcome: string });
    const sent = artifact.rungs.map((g) => g.histograms.windows.reduce((n, w) => n + w.offered, 0));
    expect(lines.filter((l) => l.rung_index === 0)).toHaveLength(sent[0] as number);
    expect(lines.filter((l) => l.rung_index === 1)).toHaveLength(sent[1] as number);
    expect(new Set(lines.map((l) => l.rate_rps))).toEqual(new Set([5, 10]));
  }, 120_000);
});
