/**
 * A deliberately wrong policy on the local SageMaker: the seed rule's plan (it predicts the
 * overflow a 2x surge brings), with its scale-out target raised to 2 x the plan's (above Q_max,
 * so the alarm can never fire). The drill refuses it up
 * front (exit 2: validate is not clean, the fixing command named, nothing sent or written); with
 * --allow-policy-mismatch it drills what is deployed, records the difference, and fails (exit 1)
 * naming the windows that broke the SLO after T_plan had passed without a scale-out.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArtifact } from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';
import { applyPlan, kokoroPlanFile, MODEL, startKokoroEmulator, TIME_SCALE } from './drill-fixtures.js';
import { type Emulator, editedCopy, withEmulatorEnv, workspace } from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let planFile: string;
let restoreEnv: () => void;
/** The plan's target and the wrong one deployed instead, as the reports print them. */
let planTarget: number;
let wrongTarget: number;
const escaped = (n: number) => String(n).replace('.', '\\.');

beforeAll(async () => {
  emulator = await startKokoroEmulator();
  dir = workspace('drill-policy');
  planFile = await kokoroPlanFile(emulator, dir, 'plan.json', 'seed');
  const wrong = editedCopy(planFile, dir, 'wrong-plan.json', (json) => {
    const d = json.deployable as { scaling_target_value: number };
    planTarget = d.scaling_target_value;
    d.scaling_target_value = 2 * d.scaling_target_value;
    wrongTarget = d.scaling_target_value;
  });
  await applyPlan(emulator, wrong);
  restoreEnv = withEmulatorEnv(emulator, join(dir, 'state'));
});

afterAll(async () => {
  restoreEnv?.();
  await emulator?.close();
});

const args = (extra: string[]) => [
  'drill',
  '--model',
  MODEL,
  '--plan',
  planFile,
  '--steady-rps',
  String(0.55 * (17.9 / TIME_SCALE)),
  '--surge-ratio',
  '2',
  '--steady-s',
  '20',
  '--surge-s',
  '80',
  '--trough-s',
  '5',
  '--window-s',
  '5',
  ...extra,
];

describe('a scale-out target raised to 2 x the plan’s', () => {
  it('is refused up front: exit 2, validate not clean, the differing parameter and the fixing command named, nothing written (prevents drilling a policy nobody derived)', async () => {
    const before = readdirSync(dir).sort();
    const cli = await runCli(args([]));
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/endpoint speech-kokoro-82m does not run the plan's policy/);
    expect(cli.stderr).toMatch(
      /scalegate validate --model kokoro-82m --endpoint speech-kokoro-82m --plan .* is not clean/,
    );
    expect(cli.stderr).toMatch(
      new RegExp(
        `scale_out\\.target_value \\(TargetValue\\): expected ${escaped(planTarget)}, deployed ${escaped(wrongTarget)}`,
      ),
    );
    expect(cli.stderr).toMatch(
      /scalegate local apply --model kokoro-82m --endpoint speech-kokoro-82m --plan /,
    );
    expect(cli.stderr).toMatch(/--allow-policy-mismatch/);
    expect(cli.stdout).toBe('');
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('drilled with --allow-policy-mismatch, fails: exit 1, the broken windows named, the difference recorded, --events one line per finished request (prevents a policy that never scales passing the drill)', {
    timeout: 240_000,
  }, async () => {
    const out = join(dir, 'drill-wrong.json');
    const prompts = join(dir, 'prompts.txt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(prompts, 'Your order has shipped.\nGood morning!\n');
    const events = join(dir, 'drill-wrong.events.jsonl');
    const cli = await runCli(
      args(['--allow-policy-mismatch', '--prompts', prompts, '--out', out, '--events', events]),
    );
    const recorded = readArtifact('drill', out);
    // --events: one JSON line per finished request (every outcome the windows count), each with
    // its phase, intended and actual send time, TTFAB and status.
    const lines = readFileSync(events, 'utf8').split('\n').filter(Boolean);
    const finished = recorded.histograms.windows.reduce(
      (n, w) => n + Object.values(w.outcome_counts).reduce((a, b) => a + (b ?? 0), 0),
      0,
    );
    expect(finished).toBeGreaterThan(0);
    expect(lines).toHaveLength(finished);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const phases = new Set<string>(recorded.phases.map((p) => p.name));
    for (const e of parsed) {
      expect(phases.has(e.phase as string)).toBe(true);
      expect(e).toHaveProperty('intended_at');
      expect(e).toHaveProperty('sent_at');
      expect(e).toHaveProperty('ttfab_intended_ms');
      expect(e).toHaveProperty('status');
    }
    const ok = parsed.filter((e) => e.outcome === 'ok');
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.every((e) => typeof e.sent_at === 'string' && typeof e.ttfab_intended_ms === 'number')).toBe(
      true,
    );
    expect(parsed.some((e) => e.phase === 'steady') && parsed.some((e) => e.phase === 'surge')).toBe(true);
    expect(cli.stdout).toMatch(/^scalegate drill kokoro-82m: FAIL/);
    // The target and the alarm on concurrency above it (derived from the target) differ.
    expect(cli.stdout).toMatch(/deployed policy: NOT the plan's \(2 parameter\(s\) differ/);
    expect(cli.stdout).toMatch(
      new RegExp(`scale_out\\.target_value: plan ${escaped(planTarget)}, deployed ${escaped(wrongTarget)}`),
    );
    expect(cli.stdout).toMatch(
      /^scalegate drill kokoro-82m: FAIL — SLO broken in (\d+ steady windows? and )?\d+ surge windows? \(/,
    );
    expect(cli.stdout).toMatch(/broken windows \(beyond what the plan predicted\): surge \d+-\d+ s/);
    expect(cli.exitCode).toBe(1);
    expect(existsSync(out)).toBe(true);
    const drill = readArtifact('drill', out);
    expect(drill).toMatchObject({ verdict: 'fail', slo_held: false, as_predicted: false });
    expect(drill.policy).toMatchObject({ verdict: 'mismatch', mismatch_allowed: true });
    expect(drill.policy.differences.map((r) => r.parameter)).toEqual([
      'scale_out.target_value',
      'alarms.concurrency_above_target.threshold',
    ]);
    // Nothing scaled; the surge overflowed; the windows after T_plan from the breach are broken.
    expect(drill.analysis.scale_outs).toEqual([]);
    expect(drill.analysis.policy_lag.seconds).toBeNull();
    expect(drill.analysis.observed.overflows.surge).toBeGreaterThan(0);
    const breach = drill.observer?.metric.points.find((p) => p.t_s >= 0 && p.value > planTarget)
      ?.t_s as number;
    // (The steady phase's first window may also break: the instance's first requests wait for
    // their texts' synthesis. Only the surge is judged here.)
    const broken = drill.analysis.windows.filter((w) => w.judged === 'broken' && w.phase === 'surge');
    expect(broken.length).toBeGreaterThan(0);
    for (const w of broken) {
      expect(w.phase).toBe('surge');
      expect(w.start_s).toBeGreaterThanOrEqual(breach + drill.prediction.t_plan_s - 5);
      expect(w.reason).toMatch(
        new RegExp(
          `more than T_plan \\d+ s after the load first exceeded the target ${escaped(planTarget)} \\((\\d+ s in the steady, )?\\d+ s in the surge\\)`,
        ),
      );
      expect(cli.stdout).toContain(`surge ${w.start_s}-${w.end_s} s`);
    }
    expect(drill.broken_windows).toEqual(expect.arrayContaining(broken.map((w) => w.index)));
    // The SLO verdict names them too: every window beyond the plan is outside the SLO.
    for (const w of broken) expect(drill.slo?.broken_windows).toContain(w.index);
  });
});
