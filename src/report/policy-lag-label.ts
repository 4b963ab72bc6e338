/** How a plan's policy lag is labelled everywhere it is printed: by where it comes from. */
import type { PlanArtifact } from '../model/index.js';

export function policyLagLabel(m: PlanArtifact['measured']): string {
  if (m.policy_lag_origin === 'measured') return 'policy lag (measured by a drill)';
  return m.policy_lag_bounded
    ? 'policy lag (bound, not measured)'
    : 'policy lag (computed from deployed alarms)';
}
