/** The pure half of ttotal: markers, the timeline and its shares, recovery windows, policy lag. */
import { describe, expect, it } from 'vitest';
import {
  analyseTimeline,
  assembleTtotalArtifact,
  findRecoveryWindow,
  halfRungP95,
  interpolatedProbeCandidates,
  isLowerBound,
  ladderP95,
  type ProbeSample,
  parseStageMarker,
  policyLag,
  probeCandidates,
  type StageObservations,
  stageMarkers,
} from '../../src/analysis/ttotal.js';
import { readArtifact, ttotalArtifactSchema } from '../../src/model/index.js';
import { anchorQmaxFile, anchorTtotalFile } from '../helpers/anchor.js';

const T = Date.parse('2026-08-04T14:44:51.707Z');
const at = (s: number) => T + s * 1000;

function observations(overrides: Partial<StageObservations> = {}): StageObservations {
  return {
    loadAppliedMs: at(-30),
    desiredSetMs: at(0),
    instanceLogging: { stream: 'AllTraffic/i-1', firstEventMs: at(180.835) },
    markers: [
      { stage: 'container_start', atMs: at(184.5), elapsedS: 0 },
      { stage: 'framework_init', atMs: at(184.574), elapsedS: 0.014 },
      { stage: 'weights_ready', atMs: at(191.049), elapsedS: 6.489 },
      { stage: 'warmup_done', atMs: at(192.095), elapsedS: 7.534 },
      { stage: 'ready', atMs: at(192.095), elapsedS: 7.534 },
    ],
    inService: { atMs: at(212.808), previousPollMs: at(207.808), pollS: 5 },
    recovered: { startMs: at(260.248), windowS: 60, samples: 1986, p95Ms: 300, targetMs: 357.7 },
    ...overrides,
  };
}

describe('stage markers', () => {
  it('parses the container contract line and ignores everything else, so a log line never fakes a stage', () => {
    expect(
      parseStageMarker('=== STAGE weights_ready t=2026-08-04T14:48:02.756Z elapsed_s=6.489 ==='),
    ).toEqual({
      stage: 'weights_ready',
      atMs: Date.parse('2026-08-04T14:48:02.756Z'),
      elapsedS: 6.489,
    });
    expect(parseStageMarker('[tts] listening port=8080')).toBeNull();
    expect(
      parseStageMarker('=== STAGE unknown_stage t=2026-08-04T14:48:02.756Z elapsed_s=1.000 ==='),
    ).toBeNull();
    expect(parseStageMarker('=== STAGE ready t=not-a-time elapsed_s=1.000 ===')).toBeNull();
  });

  it('keeps the first marker of each stage (a restarted process cannot move a stage later)', () => {
    const markers = stageMarkers([
      '=== STAGE container_start t=2026-08-04T14:48:00.000Z elapsed_s=0.000 ===',
      '=== STAGE container_start t=2026-08-04T14:49:00.000Z elapsed_s=0.000 ===',
    ]);
    expect(markers).toHaveLength(1);
    expect(markers[0]?.atMs).toBe(Date.parse('2026-08-04T14:48:00.000Z'));
  });
});

describe('timeline analysis', () => {
  it('starts the clock at desired_set, ends it at traffic_recovered, and gives shares only inside T_total', () => {
    const a = analyseTimeline(observations());
    expect(a.tTotalS).toBe(260.248);
    expect(a.endStage).toBe('traffic_recovered');
    expect(a.timeline.map((t) => t.stage)).toEqual([
      'load_applied',
      'desired_set',
      'instance_logging',
      'container_started',
      'framework_init',
      'weights_ready',
      'warmup_done',
      'ready',
      'in_service',
      'traffic_recovered',
    ]);
    const before = a.durations.find((d) => d.from === 'load_applied');
    expect(before).toMatchObject({ to: 'desired_set', seconds: 30, share: null });
    const inside = a.durations.filter((d) => d.share !== null);
    expect(inside.reduce((sum, d) => sum + d.seconds, 0)).toBeCloseTo(260.248, 2);
    expect(inside.reduce((sum, d) => sum + (d.share as number), 0)).toBeCloseTo(1, 2);
    expect(a.dominant).toEqual({ from: 'desired_set', to: 'instance_logging', seconds: 180.835 });
    expect(a.missing).toEqual([]);
  });

  it('reports missing markers as missing and labels the reconstructed container start as bounded', () => {
    const a = analyseTimeline(
      observations({
        markers: observations().markers.filter(
          (m) => m.stage !== 'container_start' && m.stage !== 'weights_ready',
        ),
      }),
    );
    expect(a.missing).toEqual(['container_started', 'weights_ready']);
    const started = a.timeline.find((t) => t.stage === 'container_started');
    expect(started).toMatchObject({ bounded: true, source: 'derived from elapsed_s' });
    expect(started?.note).toMatch(/reconstructed as framework_init minus its elapsed_s=0\.014s/);
    expect(Date.parse(started?.at as string)).toBe(at(184.56));
    expect(a.timeline.some((t) => t.stage === 'weights_ready')).toBe(false);
  });

  it('ends T_total at in_service, as a labelled lower bound, when traffic never recovered', () => {
    const a = analyseTimeline(observations({ recovered: null }));
    expect(a.endStage).toBe('in_service');
    expect(a.tTotalS).toBe(212.808);
    expect(a.missing).toEqual(['traffic_recovered']);
    expect(a.notes.join(' ')).toMatch(/lower bound/);
  });

  it('has no T_total when the instance never served', () => {
    const a = analyseTimeline(
      observations({ inService: null, recovered: null, instanceLogging: null, markers: [] }),
    );
    expect(a.tTotalS).toBeNull();
    expect(a.dominant).toBeNull();
    expect(a.missing).toContain('instance_logging');
    expect(a.missing).toContain('in_service');
  });

  it('counts a stage stamped before its predecessor as 0 with a note, never a negative share', () => {
    const a = analyseTimeline(
      observations({
        instanceLogging: { stream: 'AllTraffic/i-1', firstEventMs: at(184.6) },
      }),
    );
    const d = a.durations.find((x) => x.from === 'instance_logging');
    expect(d?.seconds).toBe(0);
    expect(a.notes.join(' ')).toMatch(
      /container_started \(the container's own clock\) is 0\.1 s before instance_logging/,
    );
    expect(a.durations.every((x) => x.seconds >= 0)).toBe(true);
  });

  it('reproduces the legacy anchor measurement: same T_total and dominant stage from the same timestamps', () => {
    const legacy = readArtifact('ttotal', anchorTtotalFile);
    const stamp = (stage: string) => Date.parse(legacy.timeline.find((t) => t.stage === stage)?.at as string);
    const a = analyseTimeline({
      loadAppliedMs: stamp('load_applied'),
      desiredSetMs: stamp('desired_set'),
      instanceLogging: { stream: 'AllTraffic/i-0d1970b845748a200', firstEventMs: stamp('instance_logging') },
      markers: [
        { stage: 'framework_init', atMs: stamp('framework_init'), elapsedS: 0.014 },
        { stage: 'weights_ready', atMs: stamp('weights_ready'), elapsedS: 6.489 },
        { stage: 'warmup_done', atMs: stamp('warmup_done'), elapsedS: 7.534 },
        { stage: 'ready', atMs: stamp('ready'), elapsedS: 7.534 },
      ],
      inService: { atMs: stamp('in_service'), previousPollMs: stamp('in_service') - 5000, pollS: 5 },
      recovered: {
        startMs: stamp('traffic_recovered'),
        windowS: 60,
        samples: 1986,
        p95Ms: 350,
        targetMs: 357.7,
      },
    });
    expect(a.tTotalS).toBeCloseTo(legacy.t_total_s, 2);
    expect(a.dominant).toMatchObject({ from: 'desired_set', to: 'instance_logging' });
    expect(a.dominant?.seconds).toBeCloseTo(180.835, 2);
    // The legacy file gave load_applied -> desired_set a share of T_total; it is outside it.
    expect(a.durations.find((d) => d.from === 'load_applied')?.share).toBeNull();
  });
});

describe('recovery window', () => {
  const samples = (fromS: number, toS: number, everyMs: number, ttfabMs: number): ProbeSample[] => {
    const out: ProbeSample[] = [];
    for (let t = at(fromS); t < at(toS); t += everyMs)
      out.push({ dispatchMs: t, endMs: t + ttfabMs, ttfabMs });
    return out;
  };

  it('finds the first window whose p95 is at or under the target with enough samples', () => {
    const data = [...samples(0, 10, 50, 500), ...samples(10, 30, 50, 100)];
    const w = findRecoveryWindow(data, {
      fromMs: at(0),
      horizonMs: at(30),
      windowS: 5,
      stepMs: 1000,
      minSamples: 20,
      targetMs: 150,
    });
    expect(w?.startMs).toBe(at(10));
    expect(w?.samples).toBe(100);
  });

  it('does not believe a window with too few samples', () => {
    const data = samples(0, 30, 1000, 10);
    expect(
      findRecoveryWindow(data, {
        fromMs: at(0),
        horizonMs: at(30),
        windowS: 5,
        stepMs: 1000,
        minSamples: 20,
        targetMs: 150,
      }),
    ).toBeNull();
  });

  it('counts failed requests as misses, so 503s cannot pass for a recovery', () => {
    const data = samples(0, 10, 50, 10).map((s, i) =>
      i % 10 === 0 ? { ...s, ttfabMs: Number.POSITIVE_INFINITY } : s,
    );
    expect(
      findRecoveryWindow(data, {
        fromMs: at(0),
        horizonMs: at(10),
        windowS: 5,
        stepMs: 1000,
        minSamples: 20,
        targetMs: 150,
      }),
    ).toBeNull();
  });

  it('never judges a window that has not ended (horizon)', () => {
    const data = samples(0, 30, 50, 10);
    expect(
      findRecoveryWindow(data, {
        fromMs: at(0),
        horizonMs: at(4),
        windowS: 5,
        stepMs: 1000,
        minSamples: 20,
        targetMs: 150,
      }),
    ).toBeNull();
  });
});

describe('ladder and policy lag', () => {
  const qmax = readArtifact('qmax', anchorQmaxFile);

  it('picks probe concurrencies with usable rungs at N and N/2, at or under Q_max', () => {
    expect(probeCandidates(qmax)).toEqual([10, 20, 40]);
    expect(ladderP95(qmax, 5)).toBeCloseTo(286.17, 1);
    expect(ladderP95(qmax, 15)).toBeNull();
  });

  it('reads N/2 between the rungs around it when an adaptive ladder skipped it (1, 2, 16, 17: probe 16, not 2), and only there', () => {
    const step = (concurrency: number, p95: number) => ({
      ...qmax.steps[0],
      concurrency,
      usable: true,
      ttfab_p95_ms: p95,
    });
    const jumped = {
      ...qmax,
      q_max: 17,
      steps: [step(1, 18.5), step(2, 31.7), step(16, 230.2), step(17, 244.1)],
    } as typeof qmax;
    expect(probeCandidates(jumped)).toEqual([2]);
    expect(interpolatedProbeCandidates(jumped)).toEqual([16]);
    const half = halfRungP95(jumped, 16);
    expect(half?.between).toEqual([2, 16]);
    // 31.7 + (8 - 2) / (16 - 2) x (230.2 - 31.7)
    expect(half?.p95Ms).toBeCloseTo(116.77, 2);
    // A measured N/2 is taken as measured; one outside the ladder is not invented.
    expect(halfRungP95(jumped, 4)).toEqual({ p95Ms: 31.7, between: null });
    expect(halfRungP95({ ...jumped, steps: [step(16, 230.2)] } as typeof qmax, 16)).toBeNull();
    // The anchor's ladder (1, 5, 10, ... 60): 30 and 50 by their N/2 read between rungs.
    expect(interpolatedProbeCandidates(qmax)).toEqual([30, 50]);
  });

  it('reads the lag from the fastest deployed scale-out alarm, period x datapoints + publication delay', () => {
    const lag = policyLag(
      [
        { policyName: 'p', alarmName: 'TargetTracking-x-AlarmHigh-1', periodS: 10, datapointsToAlarm: 3 },
        { policyName: 'q', alarmName: 'slow', periodS: 60, datapointsToAlarm: 3 },
      ],
      null,
    );
    expect(lag).toMatchObject({ lagS: 40, bounded: false });
    expect(lag.source).toMatch(
      /TargetTracking-x-AlarmHigh-1 of policy p: 3 datapoints x 10 s \+ 10 s CloudWatch publication delay \(assumed/,
    );
    expect(policyLag([{ policyName: 'p', alarmName: 'a', periodS: 10, datapointsToAlarm: 3 }], 5).lagS).toBe(
      35,
    );
  });

  it('falls back to a 60 s bound, labelled as a bound, when no scale-out policy is deployed', () => {
    expect(policyLag([], null)).toMatchObject({ lagS: 60, bounded: true });
    expect(policyLag([], null).source).toMatch(/^bound of 60 s/);
  });
});

describe('a T_total that is only a lower bound', () => {
  const end = (stage: string | undefined, missing: string[]) => ({
    t_total_end_stage: stage,
    missing_stages: missing,
  });

  it('is one that ends at in_service (the probe never recovered), for the plan, the report and the exit code alike', () => {
    expect(isLowerBound(end('in_service', ['traffic_recovered']))).toBe(true);
    expect(isLowerBound(end('traffic_recovered', []))).toBe(false);
    expect(isLowerBound(null)).toBe(false);
  });

  it('judges an artifact from before the end stage was recorded by its missing stages', () => {
    expect(isLowerBound(end(undefined, ['traffic_recovered']))).toBe(true);
    expect(isLowerBound(end(undefined, ['instance_logging']))).toBe(false);
    expect(isLowerBound(readArtifact('ttotal', anchorTtotalFile))).toBe(false);
  });
});

describe('the ttotal artifact', () => {
  it('records a scale-out that never recovered as ending at in_service, a valid artifact that says it is a lower bound', () => {
    const obs = observations({ recovered: null });
    const artifact = assembleTtotalArtifact({
      modelName: 'm',
      endpoint: 'e',
      runId: '0123456789ab',
      fingerprint: {
        instance_type: 'ml.g5.xlarge',
        image_digest: 'a'.repeat(64),
        container_env: {},
        region: 'local',
      },
      transport: 'response-stream',
      trigger: 'force-desired',
      qmax: { run_id: 'q', q_max: 8 },
      lag: { lagS: 60, bounded: true, source: 'bound of 60 s' },
      instanceId: null,
      fromInstances: 1,
      toInstances: 2,
      probeConcurrency: 16,
      obs,
      before: { p95: 100, n: 50 },
      after: { p95: null, n: 0 },
      targetMs: 150,
      mismatchWarnings: ['image digest: qmax measured b, endpoint e runs a'],
      settings: {
        probe_concurrency: 16,
        recovery_window_s: 60,
        recovery_min_samples: 20,
        recovery_target_factor: 1.25,
        poll_s: 5,
        max_wait_s: 1800,
        pre_trigger_s: 60,
        publication_delay_s: null,
      },
      quota: { quota_name: null, quota_value: null, instances_in_use: null, source: 'unknown' },
      restore: { desired_instance_count: 1, suspension_restored: true, actions: [], errors: [] },
      keptJournal: null,
      tool: 'scalegate test',
    });
    expect(ttotalArtifactSchema.parse(artifact)).toEqual(artifact);
    expect(artifact.t_total_end_stage).toBe('in_service');
    expect(isLowerBound(artifact)).toBe(true);
    expect(artifact.config_mismatch_allowed).toBe(true);
    expect(artifact.notes.join(' ')).toMatch(/probe concurrency 16 is above Q_max 8/);
    expect(artifact.notes.join(' ')).toMatch(/configuration mismatch allowed/);
  });
});
