/**
 * A T_total that ends at in_service (the probe never recovered) is only a lower bound. Every
 * output that shows T_total (terminal plan report, PR comment headline, summary and tables, job
 * summary, ttotal report, rehearsal summary) must say LOWER BOUND, and none may print it, or a
 * policy lag computed from alarm settings, as measured.
 */
import { describe, expect, it } from 'vitest';
import type { PlanArtifact, TtotalArtifact } from '../../src/model/index.js';
import {
  headline,
  type ReportInput,
  renderComment,
  renderCompactComment,
  renderReport,
} from '../../src/report/markdown.js';
import { renderPlanReport } from '../../src/report/plan-text.js';
import { renderRehearsalSummary } from '../../src/report/rehearse-text.js';
import { renderTtotalReport } from '../../src/report/ttotal-text.js';
import { kokoroMeasurements, measuredPlan } from '../infra/fixtures.js';

const lowerBoundPlan: PlanArtifact = measuredPlan({ lowerBoundTtotal: true, policyLagS: 20 });
const lowerBoundTtotal: TtotalArtifact = kokoroMeasurements({ lowerBoundTtotal: true, policyLagS: 20 })
  .ttotal as TtotalArtifact;
const completePlan: PlanArtifact = measuredPlan({ policyLagS: 20 });

const stamp = { runId: '9000000001', attempt: 1, at: '2026-11-29T17:00:00.000Z' };
const reportInput = (overrides: Partial<ReportInput> = {}): ReportInput => ({
  modelName: 'kokoro-82m',
  command: 'plan',
  exitCode: 0,
  version: 'test',
  plan: { artifact: lowerBoundPlan, file: 'artifacts/plan-kokoro-82m.json' },
  qmax: { artifact: kokoroMeasurements().qmax, file: 'artifacts/qmax.json' },
  ttotal: { artifact: lowerBoundTtotal, file: 'artifacts/ttotal.json' },
  ...overrides,
});

/** T_total or the policy lag next to "measured" anywhere on a line. */
const CLAIMS_MEASURED = /(T_total|policy lag)[^\n]*\(measured\)/;

describe('a plan on a lower-bound T_total', () => {
  it('records t_total_origin lower-bound and a computed (not measured) policy lag in the artifact', () => {
    expect(lowerBoundPlan.measured.t_total_origin).toBe('lower-bound');
    expect(lowerBoundPlan.measured.policy_lag_origin).toBe('computed');
    expect(completePlan.measured.t_total_origin).toBe('measured');
  });

  it('terminal plan report: the header, the measured table and T_plan say LOWER BOUND, never measured', () => {
    const text = renderPlanReport(lowerBoundPlan, null);
    expect(text.split('\n')[0]).toBe(
      'scalegate plan kokoro-82m: warn (5) (T_total is a LOWER BOUND: 260.2 s or more)',
    );
    expect(text).toMatch(
      /T_total \(LOWER BOUND: traffic never recovered, the clock stopped at in_service\) +≥ 260\.25 s/,
    );
    expect(text).toMatch(/T_plan = T_total \+ lag +≥ 280\.25 s \(lower bound: from a LOWER-BOUND T_total\)/);
    expect(text).toMatch(/policy lag \(from the deployed alarms, publication delay assumed\) +20 s/);
    expect(text).toMatch(
      /surge overflow within T_plan +at least 5\.0 % with a 1\.25x surge; no surge \(k = 1\): at least/,
    );
    expect(text).not.toMatch(CLAIMS_MEASURED);
  });

  it('PR comment: the headline, the summary line, the change table, the measured-inputs table and the stages say LOWER BOUND', () => {
    const comment = renderComment(reportInput({ basePlan: { artifact: completePlan, ref: 'main' } }), stamp);
    const lines = comment.split('\n');
    expect(lines[2]).toBe(
      '## ⚠️ scalegate plan · kokoro-82m: **warn (5)** · T_total **LOWER BOUND** (≥ 260.2 s)',
    );
    expect(comment).toContain('T_total **≥ 260.2 s** (LOWER BOUND)');
    expect(comment).toMatch(/\| T\\_total \(s\) +\| 260\.2 +\| \*\*≥ 260\.2\*\* +\|/);
    expect(comment).toMatch(
      /\| T\\_total \(LOWER BOUND: traffic never recovered, the clock stopped at in\\_service\) +\| ≥ 260\.25 s +\|/,
    );
    expect(comment).toContain('T_total **≥ 260.2 s** (**LOWER BOUND**: traffic never recovered');
    expect(comment).toMatch(/policy lag \(from the deployed alarms, publication delay assumed\)/);
    expect(comment).not.toMatch(CLAIMS_MEASURED);
  });

  it('job summary (the same report without markers) and the compact comment keep the LOWER BOUND headline', () => {
    const summary = renderReport(reportInput());
    expect(summary.split('\n')[0]).toContain('T_total **LOWER BOUND**');
    expect(summary).not.toMatch(CLAIMS_MEASURED);
    expect(renderCompactComment(reportInput(), stamp)).toContain('T_total **LOWER BOUND**');
  });

  it('the ttotal step itself: headline and terminal report say LOWER BOUND, T_plan too', () => {
    const input = reportInput({ command: 'ttotal', exitCode: 1, plan: null });
    expect(headline(input).text).toBe(
      '## 🛑 scalegate ttotal · kokoro-82m: **T_total ≥ 260.2 s** (LOWER BOUND: traffic never recovered)',
    );
    const text = renderTtotalReport(lowerBoundTtotal, null);
    expect(text.split('\n')[0]).toContain('LOWER BOUND: traffic never recovered');
    expect(text).toContain(
      'planned T_plan = T_total + policy lag = ≥ 280.25 s (a LOWER BOUND, as T_total is)',
    );
    expect(text).toContain('policy lag 20.0 s (from the deployed alarms, publication delay assumed)');
    expect(text).not.toMatch(CLAIMS_MEASURED);
  });

  it('rehearsal summary: the ttotal line and the plan line say LOWER BOUND, naming no cause it did not diagnose', () => {
    const text = renderRehearsalSummary({
      model: 'kokoro-82m',
      endpoint: 'speech-kokoro-82m',
      outDir: 'out',
      steps: [],
      drift: null,
      qmax: null,
      ttotal: lowerBoundTtotal,
      plan: lowerBoundPlan,
      validate: null,
      previews: null,
      failed: null,
      totalSeconds: 1,
      containerPids: [],
      device: 'cpu',
    });
    expect(text).toContain(
      'ttotal    T_total ≥ 260.2 s (LOWER BOUND: the instance came into service, but the probe p95 never fell to the target)',
    );
    expect(text).toContain(
      'from T_total (LOWER BOUND: traffic never recovered, the clock stopped at in_service) ≥ 260.2 s',
    );
    expect(text).not.toMatch(/cores/);
    expect(text).not.toMatch(CLAIMS_MEASURED);
  });

  it('findings: provision_stage and surge_survival say the figures derived from it can only be too low', () => {
    const provision = lowerBoundPlan.findings.find((f) => f.name === 'provision_stage');
    expect(provision?.verdict).toBe('warn');
    expect(provision?.detail).toContain('is a LOWER BOUND');
    expect(provision?.fix).toContain('--allow-lower-bound');
    const surge = lowerBoundPlan.findings.find((f) => f.name === 'surge_survival');
    expect(surge?.detail).toContain('(from a LOWER-BOUND T_total: the real T_plan is longer)');
    expect(surge?.detail).toContain('probability at least');
  });

  it('a complete T_total is labelled measured and its policy lag computed, never measured', () => {
    const text = renderPlanReport(completePlan, null);
    expect(text).toMatch(/T_total \(measured, single observation\) +260\.25 s/);
    expect(text).not.toContain('LOWER BOUND');
    expect(text).not.toMatch(/policy lag[^\n]*\(measured\)/);
  });
});
