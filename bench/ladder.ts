// Benchmark of the adaptive ladder against the fixed reference ladder on the same reference TTS
// container over the http transport, in one process: Q_max of each and the ratio of rung-seconds
// (the instance time a ladder costs).
//
//   npm run bench:ladder [-- --device <qmax artifact>|cpu --time-scale 0.25 --scale <f>
//                            --slo-ms <ms> --resolution 2 --order fixed,adaptive]
//
// By default the container runs the emulated accelerator derived from the committed Kokoro-82M
// ml.g5.xlarge ladder (`--device`, one lane, 55.9 ms a request), `--time-scale` 0.25 times as
// long (4x faster), judged against that ladder's SLO at the same scale (3000 ms x 0.25). Every
// hold/measure/settle time of BOTH ladders is scaled by `--scale` (default: the time scale), so
// each rung collects as many requests as the real defaults collect at the device's real speed
// (fixed 1,5,...,60 held 240 s, measured 60 s, settled 30 s; adaptive hold 120 s, measure 30 s,
// settle 10 s): the statistics, and hence the ratio, are those of a real run, in a quarter of the
// time and with timing that does not depend on the host's CPU. The rung-seconds are printed as
// measured and divided by the scale (what the same ladder costs on the real device).
//
// `--device cpu` runs host synthesis instead (eSpeak-NG, serial, CPU-bound and noisy on a shared
// machine) at the reference-tts config's SLO; then `--scale` defaults to 1.
//
// Both ladders run on a warm container (every prompt synthesised once before the first ladder).
//
// Target: the same Q_max (within the fixed ladder's own rung gap), at most one third of the
// rung-seconds.
import { mkdtempSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KOKORO_G5_QMAX, resolveDevice } from '../src/commands/device.js';
import { LADDER_DEFAULTS, runQmax } from '../src/commands/qmax.js';
import { createProgressRenderer } from '../src/load/progress.js';
import { defaultPromptSet, encodePrompts } from '../src/load/prompts.js';
import { deviceEnvironment } from '../src/local/device.js';
import { containerAssetHash } from '../src/model/asset-hash.js';
import { readConfigFile } from '../src/model/config.js';
import { type QmaxArtifact, readArtifact } from '../src/model/index.js';
import { ensureContainerBuilt, startContainer } from '../test/container/harness.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const deviceChoice = option('device', join(ROOT, KOKORO_G5_QMAX));
const onDevice = deviceChoice !== 'cpu';
const timeScale = Number(option('time-scale', onDevice ? '0.25' : '1'));
const scale = Number(option('scale', String(onDevice ? timeScale : 1)));
const resolution = Number(option('resolution', String(LADDER_DEFAULTS.adaptive.resolution)));
const order = option('order', 'fixed,adaptive').split(',');
if (!(scale > 0)) throw new Error('--scale must be positive');

const configFile = join(ROOT, 'scalegate.config.json');
const config = readConfigFile(configFile);
const model = config.models['reference-tts'];
if (!model) throw new Error(`${configFile} has no reference-tts model`);
const { device } = resolveDevice(onDevice ? { device: deviceChoice, timeScale } : { device: 'cpu' });
const defaultSlo = onDevice ? readArtifact('qmax', deviceChoice).slo_ms * timeScale : model.slo_ms;
const sloMs = Number(option('slo-ms', String(defaultSlo)));
const dir = mkdtempSync(join(tmpdir(), 'scalegate-bench-ladder-'));

ensureContainerBuilt();
// Admission bound far above any rung: Q_max is measured with an unbounded queue.
const container = await startContainer({
  MAX_QUEUE_DEPTH: '100000',
  WORKERS: '1',
  ...deviceEnvironment(device),
});
console.log(
  `bench:ladder  reference container on 127.0.0.1:${container.port}, ${onDevice ? `emulated device from ${deviceChoice} at time scale ${timeScale}` : 'host CPU synthesis (WORKERS=1)'}; ` +
    `SLO p95 TTFAB ${sloMs} ms, holds x ${scale}, adaptive resolution ${resolution}; ${availableParallelism()} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, Node ${process.version}`,
);

const results = new Map<string, { artifact: QmaxArtifact; wallS: number }>();
try {
  // Each prompt once before either ladder: a text's first request waits for its synthesis (a cold
  // cache), which would otherwise fall on whichever ladder runs first.
  for (const body of encodePrompts(defaultPromptSet())) {
    const response = await fetch(`http://127.0.0.1:${container.port}/invocations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (!response.ok) throw new Error(`warm-up request failed: HTTP ${response.status}`);
    await response.arrayBuffer();
  }
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
console.log(
  `ladder     Q_max  bracket  rungs  decisive  at hold  rung-seconds  / scale (real device)  wall s  S_mean ms`,
);
for (const [mode, r] of results) {
  const a = r.artifact;
  const rungS = a.total_rung_seconds ?? 0;
  const decisive = a.steps.filter((s) => s.end_reason === 'decisive').length;
  console.log(
    `${mode.padEnd(9)}  ${String(a.q_max).padStart(5)}  ${String(a.q_max_upper_bound ?? '-').padStart(7)}  ${String(a.steps.length).padStart(5)}  ` +
      `${String(decisive).padStart(8)}  ${String(a.steps.length - decisive).padStart(7)}  ${rungS.toFixed(1).padStart(12)}  ` +
      `${(rungS / scale).toFixed(0).padStart(21)}  ${r.wallS.toFixed(1).padStart(6)}  ${(a.s_mean_s * 1000).toFixed(1)}`,
  );
}
if (adaptive) {
  const a = adaptive.artifact;
  console.log(
    `\nadaptive rungs (concurrency verdict hold_s end looks batches): ${a.steps
      .map(
        (s) =>
          `${s.concurrency} ${s.verdict} ${(s.hold_s ?? 0).toFixed(1)} ${s.end_reason ?? '-'} ${s.looks ?? '-'} ${s.effective_sample_size ?? '-'}`,
      )
      .join(' | ')}`,
  );
  console.log(`adaptive search: ${JSON.stringify(a.search)}`);
}
if (fixed && adaptive) {
  const ratio = (adaptive.artifact.total_rung_seconds ?? 0) / (fixed.artifact.total_rung_seconds ?? 1);
  const f = fixed.artifact;
  const q = adaptive.artifact.q_max;
  // The fixed ladder only knows Q_max to within the gap between its rungs around it: [Q_max, the
  // next rung) when that rung failed; only ">= Q_max" when it did not (undecided, or none).
  const next = (f.ladder.rungs ?? []).find((r) => r > f.q_max) ?? null;
  const agreement =
    f.q_max_bracketed && next !== null
      ? q >= f.q_max && q < next
        ? `the same Q_max within the fixed ladder's resolution [${f.q_max}, ${next})`
        : `DIFFERENT: the fixed ladder puts Q_max in [${f.q_max}, ${next})`
      : q >= f.q_max
        ? `consistent: the fixed ladder only shows Q_max >= ${f.q_max} (its rung ${next ?? '-'} did not fail)`
        : `DIFFERENT: the fixed ladder shows Q_max >= ${f.q_max}`;
  console.log(
    `\nrung-seconds adaptive / fixed = ${ratio.toFixed(3)} (target <= 0.333); Q_max adaptive ${q} (bracket ${adaptive.artifact.q_max_upper_bound ?? '-'}, ` +
      `resolution ${resolution}) vs fixed ${f.q_max} (bracket ${f.q_max_upper_bound ?? '-'}): ${agreement}`,
  );
}
console.log(`artifacts in ${dir}`);
