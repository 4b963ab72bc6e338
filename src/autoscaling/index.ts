/**
 * CloudWatch alarm and Application Auto Scaling rules, pure (no I/O; the clock is always passed in
 * as epoch ms). The one implementation shared by the local SageMaker (src/local/autoscaling, which
 * adds the wire API, storage and timers) and the fleet simulator (src/sim), so both make the same
 * decisions. Imports nothing outside itself.
 */
export * from './alarm-evaluation.js';
export * from './decisions.js';
export * from './schedule.js';
export * from './step-scaling.js';
export * from './target-tracking.js';
