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
import { icGoodputRecord } from '../../src/commands/qmax-component.js';
import { VirtualClock } from '../../src/load/clock.js';
import {
  type GoodputArtifact,
  goodputArtifactSchema,
  loadModelContext,
  readArtifact,
} from '../../src/model/index.js';
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

  it('an inference component: lambda_max across its pinned copies, per copy computed from it, and how packed copies share the device', () => {
    const packed = { component: 'speech-ic', copies: 2, copiesPerInstance: 2, accelerators: 0 };
    const ic = icGoodputRecord(packed, goodput.lambda_max_rps);
    expect(ic).toMatchObject({ instances: 1, lambda_max_per_copy_rps: 6, copies_sharing_device: 2 });
    const a = goodputArtifactSchema.parse({ ...goodput, inference_component: ic });
    const text = renderGoodputReport(a, goodputFile, null);
    expect(text).toMatch(
      /lambda_max = 12 requests\/s across 2 copies of component speech-ic on 1 instance\(s\) \(measured, bracketed by a breach at 20\/s\)/,
    );
    expect(text).toContain(
      'lambda_max per copy = 6 requests/s (computed: the measured lambda_max / 2 copies pinned, measured)',
    );
    expect(text).toMatch(
      /up to 2 copies share one instance's device \(one queue\), so lambda_max per copy is that device's lambda_max divided among them/,
    );
    // The PR comment's goodput step says it too.
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'goodput',
      exitCode: 0,
      version: 'test',
      goodput: { artifact: a, file: goodputFile },
    });
    expect(md).toMatch(
      /lambda\\_max per copy = 6 requests\/s \(computed: the measured lambda\\_max \/ 2 copies pinned, measured\)/,
    );
    // A lower bound stays one per copy.
    const bound = renderGoodputReport({ ...a, lambda_max_bracketed: false }, goodputFile, null);
    expect(bound).toContain('lambda_max per copy = 6 requests/s (computed: a LOWER BOUND');
    // Copies with accelerators of their own do not share one.
    expect(icGoodputRecord({ ...packed, accelerators: 1 }, 12)).toMatchObject({
      copies_sharing_device: 1,
      sharing: expect.stringMatching(/each copy has devices of its own/),
    });
  });

  it('plan refuses a lambda_max measured across copies on more than one instance (it takes one instance as the device)', () => {
    const spreadFile = join(dir, 'goodput-spread.json');
    const ic = icGoodputRecord(
      { component: 'speech-ic', copies: 2, copiesPerInstance: 1, accelerators: 0 },
      goodput.lambda_max_rps,
    );
    writeFileSync(spreadFile, JSON.stringify({ ...goodput, inference_component: ic }));
    const { model, modelName } = loadModelContext({ configFile, modelName: 'kokoro-82m' });
    const plan = () =>
      runPlan({
        modelName,
        model,
        qmaxFile: anchorQmaxFile,
        ttotalFile: anchorTtotalFile,
        goodputFile: spreadFile,
        outFile: join(dir, 'plan-spread.json'),
      });
    expect(plan).toThrow(
      /across 2 copies on 2 instances, and the plan takes one instance's: re-measure with `scalegate goodput --model kokoro-82m --copies 1`/,
    );
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
