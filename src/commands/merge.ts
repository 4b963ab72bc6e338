/**
 * `scalegate merge <files...>`: the one verb for every shard file kind. Drill shards (kind
 * `drill-shard`) are merged into the whole drill, judged (`runDrillMerge`, which `scalegate drill
 * merge` also runs); goodput shards are combined into the run's artifact, as follows.
 *
 * Goodput: the shard files of one run into the run's artifact. Every file is read and checked before anything is written: the same fingerprint,
 * model, SLO, ladder and limits (src/analysis/goodput.ts), the same schedule seed, start and
 * windows, and shards that cover 0..n-1 exactly once (src/load/histograms.ts mergeOpenLoop). Per
 * rung the windows add, and the rung is decided from the merged windows by the same judge a
 * single process uses. A refusal names the file (exit 2) and writes nothing.
 */

import { join } from 'node:path';
import { clientHealthOf, judgedWithClientHealth } from '../analysis/client-health.js';
import { goodputContinuityRecord } from '../analysis/continuity.js';
import { checkMergeable, goodputRung, type LabelledGoodput } from '../analysis/goodput.js';
import { judgeAudioRung } from '../analysis/goodput-continuity.js';
import { withMeanInFlight } from '../analysis/goodput-metric.js';
import { summarizeGoodput } from '../load/open/goodput-ladder.js';
import type { GoodputArtifact } from '../model/artifacts.js';
import type { DrillArtifact } from '../model/drill.js';
import { UsageError } from '../model/errors.js';
import { newRunId } from '../model/ids.js';
import { checkOutputFile, readArtifact, writeArtifact } from '../model/io.js';
import { DEFAULT_ARTIFACTS_DIR, goodputFileName } from '../model/names.js';
import { READ_LIMITS, readBoundedFile } from '../model/read.js';
import { renderMergeReport } from '../report/goodput-text.js';
import { combineClientHealth } from '../stats/client-health.js';
import { mergeOpenLoop } from '../stats/histograms.js';
import { runDrillMerge } from './drill.js';
import { rateResultOf } from './goodput.js';
import { type CommandDeps, type CommandResult, resolveDeps } from './result.js';

export interface MergeInput {
  /** Shard artifacts of one run (from `scalegate goodput --shard i/n` or `scalegate drill --shard i/n`). */
  files: string[];
  /** @default `<artifactsDir>/goodput-<model>-<transport>-<slug>.json` (a drill: `drill-<model>-<slug>.json`) */
  outFile?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
}

/** The `kind` a shard file declares (null: unreadable or none; the goodput path then says why). */
function shardKindOf(file: string): string | null {
  try {
    const text = readBoundedFile(file, { maxBytes: READ_LIMITS.histogramArtifact, label: 'a shard file' });
    const kind = (JSON.parse(text) as { kind?: unknown } | null)?.kind;
    return typeof kind === 'string' ? kind : null;
  } catch {
    return null;
  }
}

/** Merges the shard files of one run, of whichever kind the first file is. */
export function runMerge(
  input: MergeInput,
  deps: CommandDeps = {},
): CommandResult<GoodputArtifact | DrillArtifact> {
  const first = input.files[0];
  if (first !== undefined && shardKindOf(first) === 'drill-shard') return runDrillMerge(input);
  return runGoodputMerge(input, deps);
}

/** The shard files of one goodput run, combined and decided. */
export function runGoodputMerge(input: MergeInput, deps: CommandDeps = {}): CommandResult<GoodputArtifact> {
  const { clock, version } = resolveDeps(deps);
  if (input.files.length === 0) {
    throw new UsageError('merge: no files given: name every shard file of one goodput run.');
  }
  if (input.outFile !== undefined) checkOutputFile(input.outFile);
  const parts: LabelledGoodput[] = input.files.map((file) => ({
    file,
    artifact: readArtifact('goodput', file),
  }));
  checkMergeable(parts);
  const ref = (parts[0] as LabelledGoodput).artifact;
  const rungs = ref.rungs.map((refRung, j) => {
    const histograms = mergeOpenLoop(
      parts.map((p) => ({ source: p.file, data: (p.artifact.rungs[j] as typeof refRung).histograms })),
    );
    const shardHealth = parts.map((p) => {
      const h = (p.artifact.rungs[j] as typeof refRung).client_health;
      return h ? clientHealthOf(h) : null;
    });
    const clientHealth = combineClientHealth(shardHealth);
    // The stall histograms merged with the rest: continuity is decided on every shard's streams.
    const judgedFromWindows = judgeAudioRung(
      histograms,
      refRung.rate_rps,
      {
        sloMs: ref.slo_ms,
        underrunSloMs: ref.continuity?.underrun_slo_ms ?? null,
        clientBufferMs: ref.continuity?.client_buffer_ms ?? 0,
        holdS: refRung.hold_s,
        settleS: refRung.settle_s,
        limits: {
          maxOverflowFraction: ref.limits.max_overflow_fraction,
          maxErrorFraction: ref.limits.max_error_fraction,
        },
      },
      `rung ${j + 1} (merged)`,
    );
    // A pass any shard's client could not keep the schedule for is undecided.
    const judged = judgedWithClientHealth(judgedFromWindows, clientHealth);
    const shardRungs = parts.map((p) => p.artifact.rungs[j] as typeof refRung);
    const utilizations = shardRungs
      .map((g) => g.client_event_loop_utilization)
      .filter((u): u is number => u !== null);
    const rung = goodputRung(
      {
        rate: refRung.rate_rps,
        startedAt: refRung.started_at,
        histograms,
        // Peaks of different processes do not add into the endpoint's peak: not known after a merge.
        peakOutstanding: null,
        loopUtilization: utilizations.length > 0 ? Math.max(...utilizations) : null,
        clientHealth,
        instanceCounts: [...new Set(shardRungs.flatMap((g) => g.instance_counts))].sort((a, b) => a - b),
      },
      judged,
      { holdS: refRung.hold_s, settleS: refRung.settle_s, shard: null },
      false,
    );
    // CloudWatch saw every shard's arrivals: any shard's level is the rate's, on the merged mean.
    const level = shardRungs.find((g) => g.metric_level)?.metric_level;
    if (level) rung.metric_level = withMeanInFlight(level, rung.mean_in_system);
    else if (shardRungs.some((g) => g.metric_level === null)) rung.metric_level = null;
    return rung;
  });
  const summary = summarizeGoodput(rungs.map(rateResultOf));
  const freezer = parts.find((p) => p.artifact.restore !== null)?.artifact;
  const resolution = ref.ladder.resolution;
  const merged: GoodputArtifact = {
    ...ref,
    run_id: newRunId(),
    measured_at: clock().toISOString(),
    lambda_max_rps: summary.lambdaMax,
    lambda_max_bracketed: summary.bracketed,
    breach_rate_rps: summary.breachRate,
    search: {
      resolution_met:
        resolution === null
          ? null
          : summary.breachRate !== null &&
            summary.breachRate - summary.lambdaMax <= resolution * summary.breachRate + 1e-9,
      undecided_rates: rungs.filter((g) => g.verdict === 'undecided').map((g) => g.rate_rps),
    },
    non_monotone: summary.nonMonotone,
    shards: (rungs[0]?.histograms.shards ?? ref.shards).map((s) => ({ index: s.index, count: s.count })),
    decided: true,
    frozen: parts.some((p) => p.artifact.frozen),
    instance_counts_observed: [...new Set(parts.flatMap((p) => p.artifact.instance_counts_observed))].sort(
      (a, b) => a - b,
    ),
    rungs,
    ...(ref.continuity
      ? {
          continuity: goodputContinuityRecord(
            {
              underrunSloMs: ref.continuity.underrun_slo_ms,
              clientBufferMs: ref.continuity.client_buffer_ms,
            },
            rungs,
            summary.breachRate,
          ),
        }
      : {}),
    restore: freezer?.restore ?? null,
    provenance: {
      origin: 'measured',
      tool: `scalegate ${version}`,
      note: `merged from ${parts.length} shard files (${parts.map((p) => p.file).join(', ')}); ${ref.provenance.note ?? ''}`,
    },
  };
  const file =
    input.outFile ??
    join(
      input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
      goodputFileName(ref.model_name, ref.transport, ref.fingerprint),
    );
  writeArtifact('goodput', file, merged);
  return {
    artifact: merged,
    report: renderMergeReport(
      merged,
      parts.map((p) => p.file),
      file,
    ),
    exitCode: 0,
    written: [file],
  };
}
