/**
 * What a goodput step and a plan made with a goodput artifact show in the PR comment and job
 * summary: lambda_max in the headline and beside Q_max, always with its provenance (measured and
 * bracketed, or a lower bound), and the open-loop ladder rung by rung.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runGoodput } from '../../src/commands/goodput.js';
import { runPlan } from '../../src/commands/plan.js';
import { VirtualClock } from '../../src/load/clock.js';
import { type GoodputArtifact, loadModelContext, readArtifact } from '../../src/model/index.js';
import { renderGoodputReport } from '../../src/report/goodput-text.js';
import { renderReport } from '../../src/report/markdown.js';
import { anchorQmaxFile, anchorTtotalFile, configFile } from '../helpers/anchor.js';
import { simulatedServer } from '../load/fixtures/simulated-server.js';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-report-'));
let goodput: GoodputArtifact;
const goodputFile = join(dir, 'goodput.json');

beforeAll(async () => {
  const context = loadModelContext({ configFile, modelName: 'kokoro-82m' });
  const clock = new VirtualClock();
  const server = simulatedServer({ clock, slots: 1, serviceMs: () => 1000 / 17.9, firstAudioShare: 0.25 });
  const run = runGoodput(
    {
      ...context,
      target: 'http://127.0.0.1:9',
      rates: [12, 20],
      holdS: 600,
      settleS: 60,
      outFile: join(dir, 'sim.json'),
    },
    {
      createTransport: () => server,
      loadClock: clock,
      now: () => Date.parse('2026-11-30T12:00:00Z') + clock.now(),
    },
  );
  let done = false;
  run.finally(() => {
    done = true;
  });
  while (!done) {
    await clock.run();
    await new Promise((r) => setImmediate(r));
  }
  const qmax = readArtifact('qmax', anchorQmaxFile);
  goodput = { ...((await run).artifact as GoodputArtifact), fingerprint: qmax.fingerprint };
  writeFileSync(goodputFile, JSON.stringify(goodput));
}, 60_000);

describe('goodput in the reports', () => {
  it('the goodput step: lambda_max in the headline with its bracket, and the ladder rung by rung', () => {
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'goodput',
      exitCode: 0,
      version: 'test',
      goodput: { artifact: goodput, file: goodputFile },
    });
    expect(md.split('\n')[0]).toBe(
      '## ✅ scalegate goodput · kokoro-82m: **lambda\\_max = 12 requests/s (bracketed by a breach at 20)**',
    );
    expect(md).toContain('### Open-loop ladder (Poisson arrivals)');
    expect(md).toMatch(/\| 12 +\| ✅ pass/);
    expect(md).toMatch(/\| 20 +\| 🛑 fail/);
  });

  it('the terminal report says what lambda_max is (measured, bracketed) and how it was decided', () => {
    const text = renderGoodputReport(goodput, goodputFile, null);
    expect(text).toMatch(
      /lambda_max = 12 requests\/s per instance \(measured, bracketed by a breach at 20\/s\)/,
    );
    expect(text).toMatch(/log-scale sectioning into 5-20 batches of >= 30 \(1 \+ L\)\^2 arrivals/);
    expect(text).toMatch(/misses at \+infinity/);
    expect(text).toMatch(
      /false PASS of a rung whose true p95 is the SLO: at most 5\.0 % \(bound \(simulated over class: /,
    );
  });

  it('a plan with a goodput artifact: lambda_max beside Q_max with its provenance, the goodput input with its fingerprint', () => {
    const { modelName, model } = loadModelContext({ configFile, modelName: 'kokoro-82m' });
    const result = runPlan({
      modelName,
      model,
      qmaxFile: anchorQmaxFile,
      ttotalFile: anchorTtotalFile,
      goodputFile,
      outFile: join(dir, 'plan.json'),
    });
    const md = renderReport({
      modelName,
      command: 'plan',
      exitCode: result.exitCode,
      version: 'test',
      plan: {
        artifact: result.artifact as NonNullable<typeof result.artifact>,
        file: join(dir, 'plan.json'),
      },
    });
    expect(md).toMatch(
      /Q_max \*\*50\*\* \(POINT ESTIMATE[^)]*\), [^,]*, lambda_max \*\*12\/s\*\* \(measured\)/,
    );
    expect(md).toMatch(
      /\| lambda\\_max \(open loop\) \| 12 requests\/s per instance \(measured, bracketed by a breach\) \|/,
    );
    expect(md).toMatch(/\| goodput \| `.*goodput\.json` \|/);
    expect(md).toMatch(/`open_loop_headroom` \| lambda\\_safe 12\.00 requests\/s \(the surge-safe rate/);
    expect(readFileSync(join(dir, 'plan.json'), 'utf8')).toContain('"lambda_max_rps": 12');
  });
});
