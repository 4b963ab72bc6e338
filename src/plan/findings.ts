/**
 * The plan's findings, in their fixed order. Each is ok | warn | stop | suppressed
 * (suppressed = not evaluated, never a pass) with a one-line detail and a fix.
 */
import {
  type Finding,
  isSageMakerTransport,
  type PolicyCandidate,
  type QmaxArtifact,
  type SeedRule,
} from '../model/index.js';
import { SURGE_OVERFLOW_WARN, type SurgeAnalysis } from '../stats/surge.js';
import { suppressedOpenLoop } from './open-loop.js';
import { remeasure } from './remeasure.js';
import { qmaxDecisionFinding } from './uncertainty.js';
import { measurementVantage } from './vantage-finding.js';

export const FINDING_NAMES = [
  'measurement_trust',
  'measurement_vantage',
  'qmax_decision',
  'curve_repeatability',
  'slo_budget',
  'invocation_ceiling',
  'queue_depth',
  'threshold_units',
  'surge_survival',
  'scale_in_safety',
  'fleet_sizing',
  'fleet_cost',
  'provision_stage',
  'quota_headroom',
  'open_loop_headroom',
  'continuity_under_load',
] as const;

export { SURGE_OVERFLOW_WARN };
/** Repeated ladders whose Q_max spread exceeds this fraction are not repeatable. */
export const REPEATABILITY_SPREAD = 0.2;
/** The naive fleet estimate differing from ours by more than this factor is called out. */
export const NAIVE_FLEET_FACTOR = 2;

export interface FindingFacts {
  model: string;
  qmax: QmaxArtifact;
  sloMs: number;
  serviceP95S: number;
  waitBudgetS: number;
  invocationCeilingS: number;
  cwRatio: number | null;
  cwRatioRung: number | null;
  scaleOutConcurrency: number;
  scaleInConcurrency: number;
  surgeRatio: number;
  tPlanS: number;
  /** The surge analysis by uniformization (with its no-surge baseline); peakRps to size the headroom fix. */
  surge: (SurgeAnalysis & { peakRps: number | null }) | null;
  minInstances: number;
  maxInstances: number;
  minSafeInstances: number | null;
  peakInstances: number;
  naivePeakInstances: number | null;
  xTargetRps: number | null;
  instanceHourlyUsd: number | null;
  tTotalOrigin: 'measured' | 'stated';
  tTotalS: number;
  /** How T_total is labelled (`bound (upper 90 % prediction, n=3)`). @default measured */
  tTotalProvenance?: string;
  /** The scale-out completed but traffic never recovered: T_total ends at in_service. */
  tTotalLowerBound: boolean;
  dominantStage: { from: string; to: string; seconds: number } | null;
  instanceQuota: number | null;
  /** TTFAB p95 at concurrency 1, ms (what the RTT floor is set against). @default unknown */
  ttfabP95AtC1Ms?: number | null;
  /** The open-loop finding, evaluated by src/plan/open-loop.ts. @default suppressed: no goodput artifact */
  openLoop?: Finding;
  /** How to name the rate the fleet is sized for. @default measured throughput at C_scale_max */
  sizedRateLabel?: string | null;
  /** The operating point: the deployed rule, the candidates, the seed's closed-loop rule. */
  policy?: PolicyFacts;
}

export interface PolicyFacts {
  rule: 'surge-safe' | 'seed';
  maxOverflowProbability: number;
  chosen: PolicyCandidate | null;
  seed: SeedRule | null;
  candidates: readonly PolicyCandidate[];
}

const fmt = (value: number, digits = 1): string => value.toFixed(digits);
const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;

function measurementTrust(f: FindingFacts): Finding {
  // A container measured directly (http) has no endpoint: its instance count is never observed
  // (older artifacts recorded a constant 1 for it).
  const direct = !isSageMakerTransport(f.qmax.transport);
  const counts = direct ? [] : [...new Set(f.qmax.instance_counts_observed)];
  if (counts.length > 1 || (counts.length === 1 && counts[0] !== 1)) {
    return {
      name: 'measurement_trust',
      verdict: 'stop',
      detail: `instance counts seen during the ladder: ${counts.join(', ')}; Q_max must be measured on exactly one instance`,
      fix: `re-measure with ${remeasure('qmax', f.model)} (it freezes scaling and pins one instance)`,
    };
  }
  const doubts: string[] = [];
  if (direct) {
    doubts.push(
      'a container measured directly over http: instance count not observed, no endpoint scaling to freeze',
    );
  } else {
    if (counts.length === 0) doubts.push('instance count not observed (every capacity check failed)');
    if (!f.qmax.frozen) doubts.push('scaling was not frozen');
  }
  if (!f.qmax.unbounded_queue)
    doubts.push('the container queue was bounded, so rejections may have capped latency');
  const basis = f.qmax.service_time_basis;
  if (basis?.fallback) {
    doubts.push(
      `S_mean/S_p95 come from concurrency ${basis.concurrency}, not an uncontended rung at 1 (${basis.reason})` +
        (basis.usable ? ': they may include queueing' : ', and that rung is unusable'),
    );
  }
  if (doubts.length > 0) {
    return {
      name: 'measurement_trust',
      verdict: 'warn',
      detail: doubts.join('; '),
      fix: `re-measure with ${remeasure('qmax', f.model)} against a frozen, single-instance endpoint with an unbounded queue${basis?.fallback ? ', with a ladder whose concurrency-1 rung is usable' : ''}`,
    };
  }
  return {
    name: 'measurement_trust',
    verdict: 'ok',
    detail: 'frozen at one instance, one instance count seen, queue unbounded during the ladder',
    fix: null,
  };
}

function curveRepeatability(f: FindingFacts): Finding {
  const runs = f.qmax.q_max_per_run;
  if (runs.length < 2) {
    return {
      name: 'curve_repeatability',
      verdict: 'suppressed',
      detail: `${runs.length} ladder run: repeatability not evaluated`,
      fix: `measure twice: ${remeasure('qmax', f.model, ' --runs 2')}`,
    };
  }
  const high = Math.max(...runs);
  const low = Math.min(...runs);
  const spread = high > 0 ? (high - low) / high : 0;
  return spread <= REPEATABILITY_SPREAD
    ? {
        name: 'curve_repeatability',
        verdict: 'ok',
        detail: `Q_max per run ${runs.join(', ')}: spread ${pct(spread)} <= ${pct(REPEATABILITY_SPREAD)}`,
        fix: null,
      }
    : {
        name: 'curve_repeatability',
        verdict: 'warn',
        detail: `Q_max per run ${runs.join(', ')}: spread ${pct(spread)} > ${pct(REPEATABILITY_SPREAD)}`,
        fix: 'find the source of variance (noisy neighbour, prompt mix, warm-up) and re-measure with more runs',
      };
}

function sloBudget(f: FindingFacts): Finding {
  const slo = f.sloMs / 1000;
  const detail = `SLO ${fmt(slo, 3)} s, S_p95 ${fmt(f.serviceP95S, 3)} s, W_max ${fmt(f.waitBudgetS, 3)} s`;
  if (f.serviceP95S >= slo) {
    return {
      name: 'slo_budget',
      verdict: 'stop',
      detail: `${detail}: one uncontended request already misses the SLO`,
      fix: 'a faster instance type or model, or an SLO above the service time',
    };
  }
  if (f.waitBudgetS < f.serviceP95S) {
    return {
      name: 'slo_budget',
      verdict: 'warn',
      detail: `${detail}: less than one service time of queueing fits in the SLO`,
      fix: 'expect Q_max near 1; consider a faster instance type or a looser SLO',
    };
  }
  return { name: 'slo_budget', verdict: 'ok', detail, fix: null };
}

function invocationCeiling(f: FindingFacts): Finding {
  const worst = f.waitBudgetS + f.serviceP95S;
  return worst > f.invocationCeilingS
    ? {
        name: 'invocation_ceiling',
        verdict: 'stop',
        detail: `W_max + S_p95 = ${fmt(worst, 3)} s exceeds the ${f.invocationCeilingS} s invocation ceiling`,
        fix: 'lower the SLO below the invocation ceiling',
      }
    : {
        name: 'invocation_ceiling',
        verdict: 'ok',
        detail: `W_max + S_p95 = ${fmt(worst, 3)} s <= ${f.invocationCeilingS} s`,
        fix: null,
      };
}

function queueDepth(f: FindingFacts): Finding {
  if (f.qmax.q_max === 0) {
    return {
      name: 'queue_depth',
      verdict: 'stop',
      detail: 'no concurrency held the SLO, not even 1',
      fix: 'a faster instance type or model, or a looser SLO',
    };
  }
  if (!f.qmax.q_max_bracketed) {
    return {
      name: 'queue_depth',
      verdict: 'warn',
      detail: `Q_max ${f.qmax.q_max} is only a lower bound: no higher rung was measured above the SLO`,
      fix: `extend the ladder: ${remeasure('qmax', f.model, ` --max-concurrency ${f.qmax.q_max * 2}`)}`,
    };
  }
  const search = f.qmax.search;
  if (search && search.resolution_met === false) {
    const undecided =
      search.undecided_rungs.length > 0 ? `; undecided in between: ${search.undecided_rungs.join(', ')}` : '';
    return {
      name: 'queue_depth',
      verdict: 'warn',
      detail: `the search did not reach its resolution: Q_max ${f.qmax.q_max}, lowest measured breach ${search.upper_bound}, requested resolution ${search.resolution}${undecided}; Q_max may be up to ${(search.upper_bound ?? f.qmax.q_max + 1) - 1}`,
      fix: `re-measure with longer rungs so the undecided ones decide: ${remeasure('qmax', f.model, ' --hold-s <more>')}`,
    };
  }
  return {
    name: 'queue_depth',
    verdict: 'ok',
    detail: `queue_max_depth ${f.qmax.q_max} = Q_max, bracketed by a measured breach at ${f.qmax.q_max_upper_bound ?? 'a higher rung'}${search?.resolution ? ` (resolution ${search.resolution} met)` : ''}`,
    fix: null,
  };
}

function thresholdUnits(f: FindingFacts): Finding {
  const chosen = f.policy?.rule === 'surge-safe' ? f.policy.chosen : null;
  if (chosen) {
    const t = chosen.target;
    return {
      name: 'threshold_units',
      verdict: 'ok',
      detail: `the target ${chosen.target_value} is in ${chosen.metric} (${chosen.statistic} per ${chosen.period_s} s) units at lambda_safe ${fmt(chosen.lambda_safe_rps, 2)} requests/s under random arrivals (${t.origin}: ${t.method}; per-period spread p10 ${t.p10}, p90 ${t.p90}), not in closed-loop concurrency`,
      fix: null,
    };
  }
  if (f.cwRatio === null) {
    return {
      name: 'threshold_units',
      verdict: 'suppressed',
      detail: 'no CloudWatch/client concurrency ratio R was measured: there is no deployable threshold',
      fix: `re-measure over the response-stream transport with CloudWatch: ${remeasure('qmax', f.model)}`,
    };
  }
  return {
    name: 'threshold_units',
    verdict: 'ok',
    detail: `R = ${fmt(f.cwRatio, 3)} at concurrency ${f.cwRatioRung}: thresholds are in CloudWatch ConcurrentRequestsPerModel (Maximum) units`,
    fix: null,
  };
}

/** The deployed surge-safe candidate: ok when it holds, stop (with the values that would) when not. */
function surgeSafeSurvival(f: FindingFacts, policy: PolicyFacts, chosen: PolicyCandidate): Finding {
  const p = policy.maxOverflowProbability;
  const lower = f.tTotalLowerBound ? 'at least ' : '';
  const within = `within T_plan ${fmt(chosen.t_plan_s)} s${f.tTotalLowerBound ? ' (from a LOWER-BOUND T_total: the real T_plan is longer)' : ''}`;
  const bound =
    chosen.lambda_safe_bound === 'lambda_max'
      ? ", capped at goodput's lambda_max"
      : chosen.lambda_safe_bound === 'slo'
        ? ', where p95 TTFAB after the surge reaches the SLO'
        : '';
  const seed = policy.seed;
  const seedText = seed
    ? `; the closed-loop rule (seed) would hold each instance at ${pct(seed.throughput_share)} of its throughput and overflow with probability ${pct(seed.baseline_overflow_probability)} with no surge, ${pct(seed.surge_overflow_probability)} with it`
    : '';
  const p95 =
    chosen.surge_p95_ttfab_ms === null
      ? 'p95 TTFAB at the end of T_plan not within the measured ladder'
      : `p95 TTFAB at the end of T_plan ${fmt(chosen.surge_p95_ttfab_ms, 0)} ms (computed)`;
  const detail = `the policy holds each instance at lambda_safe ${fmt(chosen.lambda_safe_rps, 2)} requests/s (${pct(chosen.throughput_share)} of its measured throughput${bound}): a ${f.surgeRatio}x surge overflows Q_max ${f.qmax.q_max} ${within} with probability ${lower}${pct(chosen.surge_overflow_probability)}, ${lower}${pct(chosen.baseline_overflow_probability)} with no surge (computed for the birth-death model of the instance; the method, uniformization, is numerically exact to 1e-9, the model and its inputs are not: see the sensitivity band; tolerance ${pct(p)}); ${p95}${seedText}`;
  if (!chosen.holds) {
    return {
      name: 'surge_survival',
      verdict: 'stop',
      detail: `${detail}: no rate within this server's throughput survives`,
      fix: `shorten T_total (smaller image, pre-cached weights), raise Q_max (a faster instance type), or raise max_overflow_probability above ${pct(p)} knowingly`,
    };
  }
  if (f.tTotalLowerBound) {
    return {
      name: 'surge_survival',
      verdict: 'warn',
      detail: `${detail}: survival over the real T_plan is not shown`,
      fix: `measure T_total to the end (traffic recovered): ${remeasure('ttotal', f.model, ' --qmax <qmax artifact>')}, then re-plan`,
    };
  }
  return { name: 'surge_survival', verdict: 'ok', detail, fix: null };
}

/** The values that would hold, for a fix: the surge-safe candidate's. */
const holdingValues = (policy: PolicyFacts | undefined): string => {
  const c = policy?.chosen;
  if (!c?.holds) return '';
  return `deploy the surge-safe policy instead (plan without --policy-rule seed): ${c.metric} target ${c.target_value} and scale-in threshold ${c.scale_in_threshold} hold each instance at lambda_safe ${fmt(c.lambda_safe_rps, 2)} requests/s (${pct(c.throughput_share)} of its throughput), where the surge overflows within T_plan ${fmt(c.t_plan_s)} s with probability ${pct(c.surge_overflow_probability)} (computed), ${c.peak_instances} instances at peak`;
};

function surgeSurvival(f: FindingFacts): Finding {
  const policy = f.policy;
  if (policy?.rule === 'surge-safe' && policy.chosen) return surgeSafeSurvival(f, policy, policy.chosen);
  const seedFinding = seedSurgeSurvival(f);
  // The seed's rule deployed: an overflow probability above the tolerance is a stop.
  if (
    policy?.seed &&
    !policy.seed.holds &&
    (seedFinding.verdict === 'warn' || seedFinding.verdict === 'ok')
  ) {
    return {
      ...seedFinding,
      verdict: 'stop',
      detail: `${seedFinding.detail} (above the tolerated ${pct(policy.maxOverflowProbability)}: the deployed closed-loop rule does not hold the SLO)`,
      fix: holdingValues(policy) || seedFinding.fix,
    };
  }
  return seedFinding;
}

function seedSurgeSurvival(f: FindingFacts): Finding {
  const a = f.surge;
  if (a === null) {
    return {
      name: 'surge_survival',
      verdict: 'suppressed',
      detail: 'no throughput curve to compute from',
      fix: null,
    };
  }
  // P(overflow within T) only grows with T: over a lower-bound T_plan it is a lower bound too.
  const prob = (r: { probability: number; exact: boolean }) =>
    `${r.exact && !f.tTotalLowerBound ? '' : 'at least '}${pct(r.probability)}`;
  const start = `${a.start} in flight (C_scale_max ${fmt(f.scaleOutConcurrency)} rounded)`;
  const fluid =
    a.fluidOverflowS === null
      ? `the fluid queue from ${start} never reaches Q_max`
      : `the fluid queue fills from ${start} to Q_max ${f.qmax.q_max} in ${fmt(a.fluidOverflowS)} s`;
  const how = a.exact
    ? 'first-passage probabilities of the birth-death model, by uniformization (numerically exact to 1e-9)'
    : 'bounds: the computation budget ran out';
  const within = `within T_plan ${fmt(f.tPlanS)} s${f.tTotalLowerBound ? ' (from a LOWER-BOUND T_total: the real T_plan is longer)' : ''}`;
  if (a.cause === 'no-headroom') {
    const share = a.headroomUtilization ?? 0;
    const rps = share * a.capacityRps;
    const instances =
      a.peakRps !== null && rps > 0
        ? `, ${Math.ceil(a.peakRps / rps)} instances at peak instead of ${f.peakInstances}`
        : '';
    return {
      name: 'surge_survival',
      verdict: 'warn',
      detail:
        `at the target this server runs at ${pct(a.utilization)} of its measured throughput (${fmt(a.baseRate, 2)} of ${fmt(a.capacityRps, 2)} requests/s): ` +
        `the queue overflows Q_max ${f.qmax.q_max} ${within} with probability ${prob(a.baseline)} with no surge (k = 1) and ${prob(a.surge)} with a ${f.surgeRatio}x surge (${how}); ` +
        `the overflow happens with or without a surge: the target leaves no throughput headroom; ${fluid}`,
      fix:
        share > 0
          ? `provision so each instance receives at most ${pct(share)} of its measured throughput (${fmt(rps, 2)} requests/s${instances}): ` +
            `from that load even a ${f.surgeRatio}x surge overflows ${within} with probability <= ${pct(f.policy?.maxOverflowProbability ?? SURGE_OVERFLOW_WARN)} (computed). ` +
            `A concurrency target cannot express this here: at ${a.saturationConcurrency} in flight or more this server already runs at >= 99 % of its throughput. ` +
            'Lowering the surge ratio changes nothing (it overflows without a surge)'
          : `no load within this server's measured throughput survives a ${f.surgeRatio}x surge ${within}: shorten T_total or raise Q_max (a faster instance type or model)`,
    };
  }
  const detail = `a ${f.surgeRatio}x surge overflows the Q_max queue ${within} with probability ${prob(a.surge)}; with no surge (k = 1): ${prob(a.baseline)} (${how}); ${fluid}`;
  if (a.cause === 'surge') {
    const survivable = a.survivableSurgeRatio ?? 1;
    return {
      name: 'surge_survival',
      verdict: 'warn',
      detail: `${detail}: the surge is the cause`,
      fix:
        survivable > 1
          ? `this plan survives surges up to ${(Math.floor(survivable * 100) / 100).toFixed(2)}x ${within}: shorten T_total (smaller image, pre-cached weights) or pre-scale before known peaks to promise ${f.surgeRatio}x, or promise at most that`
          : 'shorten T_total (smaller image, pre-cached weights) or pre-scale before known peaks: no surge above 1x fits within T_plan',
    };
  }
  if (f.tTotalLowerBound) {
    return {
      name: 'surge_survival',
      verdict: 'warn',
      detail: `${detail}: survival over the real T_plan is not shown`,
      fix: `measure T_total to the end (traffic recovered): ${remeasure('ttotal', f.model, ' --qmax <qmax artifact>')}, then re-plan`,
    };
  }
  return { name: 'surge_survival', verdict: 'ok', detail, fix: null };
}

function scaleInSafety(f: FindingFacts): Finding {
  if (f.minSafeInstances === null) {
    return {
      name: 'scale_in_safety',
      verdict: 'suppressed',
      detail: 'the scale band is degenerate (C_scale_min <= 0): no safe minimum exists',
      fix: 'lower the surge ratio below 1.5',
    };
  }
  return f.minInstances < f.minSafeInstances
    ? {
        name: 'scale_in_safety',
        verdict: 'warn',
        detail: `min_instances ${f.minInstances} < ${f.minSafeInstances}: below ${f.minSafeInstances} instances, removing one pushes the survivors past the scale-out threshold`,
        fix: `raise min_instances_floor to ${f.minSafeInstances}, or accept scale-in oscillation at trough load`,
      }
    : {
        name: 'scale_in_safety',
        verdict: 'ok',
        detail: `min_instances ${f.minInstances} >= smallest safe minimum ${f.minSafeInstances}`,
        fix: null,
      };
}

function fleetSizing(f: FindingFacts): Finding {
  if (f.naivePeakInstances === null) {
    return {
      name: 'fleet_sizing',
      verdict: 'ok',
      detail: `peak load stated in streams: ${f.peakInstances} instances at ${fmt(f.scaleOutConcurrency)} streams each`,
      fix: null,
    };
  }
  const ours = Math.max(1, f.peakInstances);
  const naive = Math.max(1, f.naivePeakInstances);
  const factor = Math.max(ours / naive, naive / ours);
  const sized = f.sizedRateLabel ?? `measured throughput ${fmt(f.xTargetRps ?? 0, 2)} rps/instance`;
  const detail = `${f.peakInstances} instances at peak from ${sized}; the naive rps x S_mean / C_scale_max gives ${f.naivePeakInstances} (${fmt(factor)}x off)`;
  return factor > NAIVE_FLEET_FACTOR
    ? {
        name: 'fleet_sizing',
        verdict: 'warn',
        detail,
        fix: 'size the fleet from throughput (max_instances here), never from concurrency x service time: this server does not serve its in-flight requests in parallel',
      }
    : { name: 'fleet_sizing', verdict: 'ok', detail, fix: null };
}

function fleetCost(f: FindingFacts): Finding {
  if (f.instanceHourlyUsd === null) {
    return {
      name: 'fleet_cost',
      verdict: 'suppressed',
      detail: 'no instance price known',
      fix: 'set instance_hourly_usd for the model in scalegate.config.json',
    };
  }
  const price = f.instanceHourlyUsd;
  return {
    name: 'fleet_cost',
    verdict: 'ok',
    detail: `$${(f.minInstances * price).toFixed(2)}/h at min (${f.minInstances}), $${(f.maxInstances * price).toFixed(2)}/h at max (${f.maxInstances}) at $${price.toFixed(3)}/instance-hour`,
    fix: null,
  };
}

function provisionStage(f: FindingFacts): Finding {
  if (f.tTotalOrigin === 'stated') {
    return {
      name: 'provision_stage',
      verdict: 'warn',
      detail: `T_total ${fmt(f.tTotalS)} s was stated, not measured`,
      fix: `measure it: ${remeasure('ttotal', f.model, ' --qmax <qmax artifact>')}`,
    };
  }
  const dominant = f.dominantStage
    ? `; dominant stage ${f.dominantStage.from} -> ${f.dominantStage.to} ${fmt(f.dominantStage.seconds)} s`
    : '';
  if (f.tTotalLowerBound) {
    return {
      name: 'provision_stage',
      verdict: 'warn',
      detail: `T_total ${fmt(f.tTotalS)} s is a LOWER BOUND: the instance came into service but the probe never recovered, so the clock stopped at in_service; T_plan, the cooldowns and the surge probability use it as if complete and can only be too low${dominant}`,
      fix: `re-measure where the new instance gets its own capacity: ${remeasure('ttotal', f.model, ' --qmax <qmax artifact>')} (a longer --max-wait-s if it was still recovering); until then the gate refuses this plan unless --allow-lower-bound`,
    };
  }
  return {
    name: 'provision_stage',
    verdict: 'ok',
    detail: `T_total ${fmt(f.tTotalS)} s ${f.tTotalProvenance ? `(${f.tTotalProvenance})` : 'measured'}${dominant}`,
    fix: null,
  };
}

function quotaHeadroom(f: FindingFacts): Finding {
  if (f.instanceQuota === null) {
    return {
      name: 'quota_headroom',
      verdict: 'suppressed',
      detail: 'no endpoint-usage quota known for the instance type',
      fix: 'set instance_quota for the model in scalegate.config.json (Service Quotas: "<type> for endpoint usage")',
    };
  }
  return f.maxInstances > f.instanceQuota
    ? {
        name: 'quota_headroom',
        verdict: 'warn',
        detail: `max_instances ${f.maxInstances} exceeds the quota of ${f.instanceQuota}: scale-out will fail before peak`,
        fix: `request a quota increase to at least ${f.maxInstances}`,
      }
    : {
        name: 'quota_headroom',
        verdict: 'ok',
        detail: `max_instances ${f.maxInstances} <= quota ${f.instanceQuota}`,
        fix: null,
      };
}

export function evaluateFindings(facts: FindingFacts): Finding[] {
  return [
    measurementTrust(facts),
    measurementVantage(facts.model, facts.qmax, facts.ttfabP95AtC1Ms ?? null),
    qmaxDecisionFinding(facts.qmax, facts.model),
    curveRepeatability(facts),
    sloBudget(facts),
    invocationCeiling(facts),
    queueDepth(facts),
    thresholdUnits(facts),
    surgeSurvival(facts),
    scaleInSafety(facts),
    fleetSizing(facts),
    fleetCost(facts),
    provisionStage(facts),
    quotaHeadroom(facts),
    facts.openLoop ?? suppressedOpenLoop(facts.model),
  ];
}

export function planVerdict(findings: readonly Finding[]): {
  verdict: 'ok' | 'warn' | 'stop';
  warnCount: number;
} {
  const warnCount = findings.filter((f) => f.verdict === 'warn').length;
  if (findings.some((f) => f.verdict === 'stop')) return { verdict: 'stop', warnCount };
  return { verdict: warnCount > 0 ? 'warn' : 'ok', warnCount };
}
