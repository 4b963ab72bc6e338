import { compareArtifactSchema } from './artifacts/compare.js';
import { driftArtifactSchema } from './artifacts/drift.js';
import { goodputArtifactSchema } from './artifacts/goodput.js';
import { planArtifactSchema } from './artifacts/plan.js';
import { qmaxArtifactSchema } from './artifacts/qmax.js';
import { ttotalArtifactSchema } from './artifacts/ttotal.js';
import { tuneArtifactSchema } from './artifacts/tune.js';
import { validateArtifactSchema } from './artifacts/validate.js';

export {
  type AudioFormat,
  type AudioSummary,
  audioFormatSchema,
  audioSummarySchema,
  type BoundedBy,
  boundedBySchema,
  type Continuity,
  continuitySchema,
} from './artifacts/audio.js';
export {
  intervalSchema,
  isSageMakerTransport,
  type JournalRestoreRecord,
  journalRestoreRecordSchema,
  provenanceSchema,
  type RestoreRecord,
  restoreRecordSchema,
  rungVerdictSchema,
  SCHEMA_VERSION,
  type Transport,
  transportSchema,
} from './artifacts/common.js';
export {
  type CompareArtifact,
  type CompareCandidate,
  type CompareQuota,
  compareArtifactSchema,
  compareCandidateSchema,
  compareQuotaSchema,
} from './artifacts/compare.js';
export {
  type CostPoint,
  costPointSchema,
  type InstancePrice,
  instancePriceSchema,
  isoDate,
  type PlanCost,
  type PriceSource,
  planCostSchema,
  priceSourceSchema,
  type ReferencePrice,
  referencePriceSchema,
} from './artifacts/cost.js';
export {
  type ComparisonRow,
  comparisonRowSchema,
  type DriftArtifact,
  driftArtifactSchema,
} from './artifacts/drift.js';
export {
  type GoodputArtifact,
  type GoodputMetricLevel,
  type GoodputRung,
  goodputArtifactSchema,
  goodputMetricLevelSchema,
  goodputRungSchema,
  rateVerdictSchema,
} from './artifacts/goodput.js';
export {
  type IcAlarm,
  type IcOrigin,
  type IcStepAdjustment,
  type IcStepPolicy,
  type InferenceComponentPlan,
  icOriginSchema,
  icStepAdjustments,
  icStepPolicies,
  inferenceComponentPlanSchema,
} from './artifacts/inference-component.js';
export {
  type Deployable,
  deployableSchema,
  type Finding,
  type FindingVerdict,
  findingSchema,
  findingVerdictSchema,
  type MetricLevel,
  metricLevelSchema,
  type PlanArtifact,
  type PolicyCandidate,
  type PolicyChoice,
  type PolicyChosenBy,
  planArtifactSchema,
  policyCandidateSchema,
  policyChoiceSchema,
  policyChosenBySchema,
  REGION_FROM_CONFIG,
  type RegionSource,
  regionSourceSchema,
  SCALING_METRICS,
  type ScalingMetric,
  type SeedRule,
  type SurgeSensitivityRecord,
  scalingMetricSchema,
  scheduledActionsOf,
  seedRuleSchema,
  stepScaleOutOf,
  surgeSensitivitySchema,
  tunedPolicyLabel,
} from './artifacts/plan.js';
export {
  ladderSchema,
  type QmaxArtifact,
  type QmaxStep,
  qmaxArtifactSchema,
  qmaxStepSchema,
} from './artifacts/qmax.js';
export {
  type ScheduledAction,
  type StepScaleOut,
  scheduledActionSchema,
  stepScaleOutSchema,
} from './artifacts/scaling-actions.js';
export {
  durationSchema,
  type PredictionBoundRecord,
  predictionBoundSchema,
  type TtotalArtifact,
  type TtotalObservation,
  timelineEntrySchema,
  ttotalArtifactSchema,
  ttotalObservationSchema,
  ttotalStageNames,
} from './artifacts/ttotal.js';
export {
  type TraceRef,
  type TuneArtifact,
  type TunedPolicy,
  type TuneEntry,
  type TuneScore,
  traceRefSchema,
  tuneArtifactSchema,
  tunedPolicySchema,
  tuneEntrySchema,
  tuneScoreSchema,
} from './artifacts/tune.js';
export { type ValidateArtifact, validateArtifactSchema } from './artifacts/validate.js';

export { type Outcome, outcomeSchema } from './outcomes.js';

export const artifactSchemas = {
  qmax: qmaxArtifactSchema,
  ttotal: ttotalArtifactSchema,
  goodput: goodputArtifactSchema,
  plan: planArtifactSchema,
  drift: driftArtifactSchema,
  validate: validateArtifactSchema,
  tune: tuneArtifactSchema,
  compare: compareArtifactSchema,
} as const;

/** The command that writes each kind, for error messages that say how to get a valid file. */
export const producerOf: Record<keyof typeof artifactSchemas, string> = {
  qmax: 'scalegate qmax',
  ttotal: 'scalegate ttotal',
  goodput: 'scalegate goodput',
  plan: 'scalegate plan',
  drift: 'scalegate drift',
  validate: 'scalegate validate',
  tune: 'scalegate tune',
  compare: 'scalegate compare',
};
