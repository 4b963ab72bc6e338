/** The fleet simulator: a SageMaker variant under its scaling policy, in simulated time (pure, seeded). */
export { rateRows, rateRowsAt } from './arrivals.js';
export { simulateFleet } from './fleet.js';
export type * from './types.js';
export { simDeviceFromProfile, simPolicyFromPlan, simPolicyFromTuned, simStartupFromProfile } from './policy.js';
export { type AgreementReport, compareDrillWithSimulation } from './agreement.js';
