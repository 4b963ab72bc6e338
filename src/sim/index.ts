/** The fleet simulator: a SageMaker variant under its scaling policy, in simulated time (pure, seeded). */

export { type AgreementReport, compareDrillWithSimulation } from './agreement.js';
export { rateRows, rateRowsAt } from './arrivals.js';
export { simulateFleet } from './fleet.js';
export {
  metricDelaysFromPlan,
  simDeviceFromProfile,
  simPolicyFromPlan,
  simPolicyFromTuned,
  simStartupFromProfile,
} from './policy.js';
export type * from './types.js';
