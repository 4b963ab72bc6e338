/** The config changes a pull request makes that weaken the release gate, base entry -> PR entry. */
import { describe, expect, it } from 'vitest';
import { configWeakenings } from '../../src/plan/config-weakening.js';
import { configWeakeningSection } from '../../src/report/config-weakening-text.js';
import { kokoroModel } from '../infra/fixtures.js';

const base = kokoroModel({ require_drill: true, instance_quota: 500 });

describe('configWeakenings', () => {
  it('names each weakening: require_drill off, SLO raised, surge ratio, floor and loads lowered, overflow tolerance and quota raised', () => {
    const head = kokoroModel({
      require_drill: false,
      slo_ms: 60000,
      surge_ratio: 1.05,
      min_instances_floor: 1,
      peak_rps: 100,
      trough_rps: 1,
      max_overflow_probability: 0.2,
      invocation_ceiling_s: 120,
      instance_quota: 5000,
    });
    const before = { ...base, min_instances_floor: 2 };
    expect(configWeakenings(before, head).map((w) => `${w.field} ${w.from} -> ${w.to}`)).toEqual([
      'require_drill true -> false',
      'slo_ms 3000 -> 60000',
      'surge_ratio 1.25 -> 1.05',
      'min_instances_floor 2 -> 1',
      'max_overflow_probability 0.05 -> 0.2',
      'peak_rps 5000 -> 100',
      'trough_rps 10 -> 1',
      'invocation_ceiling_s 60 -> 120',
      'instance_quota 500 -> 5000',
    ]);
  });

  it('names nothing for a change that strengthens the gate, for an unchanged entry, or for a new model', () => {
    const stronger = kokoroModel({
      require_drill: true,
      slo_ms: 2000,
      surge_ratio: 1.4,
      min_instances_floor: 3,
      peak_rps: 9000,
      instance_quota: 100,
    });
    expect(configWeakenings(base, stronger)).toEqual([]);
    expect(configWeakenings(base, base)).toEqual([]);
    expect(configWeakenings(null, base)).toEqual([]);
  });

  it('calls out a removed quota and a load restated in another unit (not comparable as numbers)', () => {
    const head = {
      ...kokoroModel({ require_drill: true, instance_quota: undefined }),
      peak_rps: undefined,
      peak_streams: 40,
    };
    const fields = configWeakenings(base, head).map((w) => w.field);
    expect(fields).toEqual(['peak_streams', 'instance_quota']);
  });
});

describe('the PR comment section', () => {
  it('renders one table row per weakening, escaping the values, and nothing when there is none', () => {
    const lines = configWeakeningSection(
      configWeakenings(base, kokoroModel({ slo_ms: 60000 })),
      'main',
      null,
    );
    expect(lines[0]).toBe('### ⚠️ Config changes that weaken the gate');
    expect(lines.join('\n')).toContain(
      '| `slo_ms` | 3000 | 60000 | a slower answer counts as within the SLO |',
    );
    expect(lines.join('\n')).toContain('`require_drill`');
    expect(configWeakeningSection([], 'main', null)).toEqual([]);
    expect(configWeakeningSection(null, 'main', 'The config on main could not be read')[0]).toBe(
      '### Config changes',
    );
  });
});
