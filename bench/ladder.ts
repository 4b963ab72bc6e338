// Benchmark of the adaptive ladder against the fixed reference ladder on the same reference TTS
// container (infra/container, eSpeak-NG, serial), over the http transport: Q_max of each and the
// ratio of rung-seconds (the instance time a ladder costs).
//
//   npm run bench:ladder [-- --scale 1 --slo-ms 1000 --resolution 2 --order fixed,adaptive]
//
// --scale multiplies every hold/measure/settle time of BOTH ladders (default 1 = the real
// defaults: fixed 1,5,...,60 held 240 s, measured 60 s, settled 30 s; adaptive hold 120 s,
// measure 30 s, settle 10 s). A smaller scale shortens the run but favours the fixed ladder: an
// adaptive rung needs its samples whatever the scale.
//
// Target: the same Q_max within the resolution, at most one third of the rung-seconds.
import { mkdtempSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LADDER_DEFAULTS, runQmax } from '../src/commands/qmax.js';
import { createProgressRenderer } from '../src/load/progress.js';
import { containerAssetHash } from '../src/model/asset-hash.js';
import { readConfigFile } from '../src/model/config.js';
import type { QmaxArtifact } from '../src/model/index.js';
import { ensureContainerBuilt, startContainer } from '../test/container/harness.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const scale = Number(option('scale', '1'));
const resolution = Number(option('resolution', '2'));
const order = option('order', 'fixed,adaptive').split(',');
if (!(scale > 0)) throw new Error('--scale must be positive');

const configFile = 'scalegate.config.json';
const config = readConfigFile(configFile);
const model = config.models['reference-tts'];
if (!model) throw new Error(`${configFile} has no reference-tts model`);
const sloMs = Number(option('slo-ms', String(model.slo_ms)));
const dir = mkdtempSync(join(tmpdir(), 'scalegate-bench-ladder-'));

ensureContainerBuilt();
// Admission bound far above any rung: Q_max is measured with an unbounded queue.
const container = await startContainer({ MAX_QUEUE_DEPTH: '100000', WORKERS: '1' });
console.log(
  `bench:ladder  reference container (WORKERS=1) on 127.0.0.1:${container.port}, SLO p95 TTFAB ${sloMs} ms, ` +
    `scale ${scale}, adaptive resolution ${resolution}; ${availableParallelism()} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, Node ${process.version}`,
);

const results = new Map<string, { artifact: QmaxArtifact; wallS: number }>();
try {
  for (const mode of order) {
    if (mode !== 'fixed' && mode !== 'adaptive') throw new Error(`--order: unknown ladder ${mode}`);
    const d = mode === 'fixed' ? LADDER_DEFAULTS.fixed : LADDER_DEFAULTS.adaptive;
    const started = Date.now();
    const result = await runQmax(
      {
        modelName: 'reference-tts',
        model,
        configFile,
        endpoint: model.endpoint,
        variant: model.variant,
        region: 'local',
        target: `http://127.0.0.1:${container.port}`,
        sloMs,
        ladder: mode,
        ...(mode === 'adaptive' ? { resolution } : {}),
        holdS: d.holdS * scale,
        measureS: d.measureS * scale,
        settleS: d.settleS * scale,
        outFile: join(dir, `qmax-${mode}.json`),
      },
      { progress: createProgressRenderer(process.stderr), assetHash: containerAssetHash },
    );
    const artifact = result.artifact as QmaxArtifact;
    results.set(mode, { artifact, wallS: (Date.now() - started) / 1000 });
    console.log(`\n${mode}:\n${result.report}\n`);
  }
} finally {
  await container.kill();
}

const fixed = results.get('fixed');
const adaptive = results.get('adaptive');
console.log('ladder     Q_max  bracket  rungs  rung-seconds  wall s   S_mean ms');
for (const [mode, r] of results) {
  const a = r.artifact;
  console.log(
    `${mode.padEnd(9)}  ${String(a.q_max).padStart(5)}  ${String(a.q_max_upper_bound ?? '-').padStart(7)}  ${String(a.steps.length).padStart(5)}  ` +
      `${(a.total_rung_seconds ?? 0).toFixed(1).padStart(12)}  ${r.wallS.toFixed(1).padStart(6)}   ${(a.s_mean_s * 1000).toFixed(1)}`,
  );
}
if (fixed && adaptive) {
  const ratio = (adaptive.artifact.total_rung_seconds ?? 0) / (fixed.artifact.total_rung_seconds ?? 1);
  const delta = Math.abs(adaptive.artifact.q_max - fixed.artifact.q_max);
  // The fixed ladder only knows Q_max to within the gap between its rungs around it.
  const rungs = fixed.artifact.ladder.rungs ?? [];
  const above = rungs.find((r) => r > fixed.artifact.q_max);
  const fixedResolution = above === undefined ? null : above - fixed.artifact.q_max;
  console.log(
    `\nrung-seconds adaptive / fixed = ${ratio.toFixed(3)} (target <= 0.333); |Q_max adaptive - Q_max fixed| = ${delta} ` +
      `(adaptive resolution ${resolution}; the fixed ladder resolves ${fixedResolution ?? '?'} there)`,
  );
}
console.log(`artifacts in ${dir}`);
