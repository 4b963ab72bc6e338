/**
 * The inference-component (IC) side of a model config: copies of the model packed onto instances,
 * copy-level autoscaling, managed instance scaling (instances follow copies) and scale to zero.
 * One component per endpoint: scalegate plans one model's copies, never a multi-model endpoint.
 */
import type { ScalingPolicy } from '@aws-sdk/client-application-auto-scaling';
import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { z } from 'zod';
import { boundedNumber, LIMITS, safeString } from './safe.js';

/** SageMaker resource names: letters, digits and hyphens, 63 at most. */
const componentNameSchema = z
  .string()
  .regex(/^[a-zA-Z0-9](-*[a-zA-Z0-9])*$/, 'letters, digits and hyphens (SageMaker resource name)')
  .max(63);

export const inferenceComponentConfigSchema = z
  .object({
    /** The component's name. @default `<endpoint>-ic` */
    component_name: componentNameSchema.optional(),
    /** Most copies one instance packs (the compute requirements must fit that many). */
    copies_per_instance: boundedNumber(1, 64, 'copies_per_instance').int(),
    /** Accelerator devices one copy needs (NumberOfAcceleratorDevicesRequired). */
    accelerators: boundedNumber(0, 64, 'accelerators').optional(),
    /** vCPUs one copy needs (NumberOfCpuCoresRequired). */
    cpu_cores: boundedNumber(0, 1024, 'cpu_cores').optional(),
    /** Memory one copy needs, MiB (MinMemoryRequiredInMb). */
    memory_mb: boundedNumber(1, 4_000_000, 'memory_mb').int(),
    /** Fewest copies; 0 scales to zero when idle (needs instance_bounds.min 0). */
    min_copies: boundedNumber(0, LIMITS.instances, 'min_copies').int(),
    max_copies: boundedNumber(1, LIMITS.instances, 'max_copies').int(),
    /** Managed instance scaling: the instances follow the copies within these bounds. */
    instance_bounds: z
      .object({
        min: boundedNumber(0, LIMITS.instances, 'instance_bounds.min').int(),
        max: boundedNumber(1, LIMITS.instances, 'instance_bounds.max').int(),
      })
      .strict(),
    /** Idle minutes before a component at its fewest copies scales in to zero (min_copies 0). @default 15 */
    idle_scale_in_minutes: boundedNumber(1, 1440, 'idle_scale_in_minutes').int().default(15),
    /**
     * Period of the wake alarm (Sum of NoCapacityInvocationFailures), seconds: 10, 20, 30 or a
     * multiple of 60. AWS publishes that metric each minute, so anything below 60 only shortens a
     * rehearsal against the local SageMaker (which records every failure at once). @default 60
     */
    wake_alarm_period_s: z
      .number()
      .int()
      .refine((s) => [10, 20, 30].includes(s) || (s >= 60 && s <= 86_400 && s % 60 === 0), {
        message: 'wake_alarm_period_s: 10, 20, 30 or a multiple of 60 (CloudWatch alarm periods)',
      })
      .default(60),
    /** The longest wait for a wake from zero the callers tolerate, seconds. @default 60 */
    wake_tolerance_s: boundedNumber(0, LIMITS.seconds, 'wake_tolerance_s').positive().default(60),
    /** Client retries on the no-capacity error while the component wakes. @default 5 */
    client_retry_attempts: boundedNumber(0, 100, 'client_retry_attempts').int().default(5),
    /** Pause between two of those retries, seconds (constant backoff). @default 10 */
    client_retry_backoff_s: boundedNumber(0, 3600, 'client_retry_backoff_s').positive().default(10),
    /** Other models on the same endpoint: refused (one component per endpoint). */
    models: z.array(safeString).optional(),
  })
  .strict();
export type InferenceComponentConfig = z.infer<typeof inferenceComponentConfigSchema>;

export interface IssueSink {
  addIssue(issue: { code: 'custom'; path: (string | number)[]; message: string }): void;
}

/** Cross-field rules of an IC model (added to the model config's superRefine). */
export function checkInferenceComponent(
  model: {
    kind: 'variant' | 'inference-component';
    inference_component?: InferenceComponentConfig | undefined;
  },
  ctx: IssueSink,
): void {
  const ic = model.inference_component;
  const at = (field: string) => ['inference_component', ...field.split('.')];
  const issue = (field: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: at(field), message });
  if (model.kind === 'variant') {
    if (ic) {
      ctx.addIssue({
        code: 'custom',
        path: ['kind'],
        message: "an inference_component block needs kind 'inference-component'",
      });
    }
    return;
  }
  if (!ic) {
    ctx.addIssue({
      code: 'custom',
      path: ['inference_component'],
      message: "kind 'inference-component' needs an inference_component block",
    });
    return;
  }
  if (ic.models !== undefined) {
    issue(
      'models',
      'multi-model endpoints are not supported: scalegate plans one model per endpoint (one inference component); declare each model with its own endpoint',
    );
  }
  if (ic.accelerators === undefined && ic.cpu_cores === undefined) {
    issue('accelerators', 'state the compute one copy needs: accelerators (GPU devices) or cpu_cores');
  }
  // SageMaker's NumberOfAcceleratorDevicesRequired has a minimum of 1: a fraction is refused at deploy.
  if (ic.accelerators !== undefined && ic.accelerators > 0 && ic.accelerators < 1) {
    issue(
      'accelerators',
      `accelerators ${ic.accelerators}: SageMaker reserves whole devices (NumberOfAcceleratorDevicesRequired >= 1); for copies that share one device, leave accelerators out and state cpu_cores (copies that reserve none share the instance's device)`,
    );
  }
  if (ic.min_copies > ic.max_copies)
    issue('min_copies', `min_copies ${ic.min_copies} exceeds max_copies ${ic.max_copies}`);
  if (ic.instance_bounds.min > ic.instance_bounds.max) {
    issue(
      'instance_bounds.min',
      `instance_bounds.min ${ic.instance_bounds.min} exceeds instance_bounds.max ${ic.instance_bounds.max}`,
    );
  }
  if (ic.min_copies === 0 && ic.instance_bounds.min !== 0) {
    issue(
      'instance_bounds.min',
      `min_copies 0 (scale to zero) needs instance_bounds.min 0, else ${ic.instance_bounds.min} idle instance(s) stay billed with no copy on them`,
    );
  }
  if (ic.min_copies > 0 && ic.instance_bounds.min === 0) {
    issue(
      'instance_bounds.min',
      `min_copies ${ic.min_copies} needs at least one instance: set instance_bounds.min to 1 or more`,
    );
  }
  const packed = ic.instance_bounds.max * ic.copies_per_instance;
  if (ic.max_copies > packed) {
    issue(
      'max_copies',
      `max_copies ${ic.max_copies} exceeds instance_bounds.max ${ic.instance_bounds.max} x copies_per_instance ${ic.copies_per_instance} = ${packed}: copies beyond it never find room`,
    );
  }
}

/** The component's name: configured, else `<endpoint>-ic`. */
export const componentNameOf = (
  endpoint: string,
  ic: Pick<InferenceComponentConfig, 'component_name'>,
): string => ic.component_name ?? `${endpoint}-ic`;

/**
 * What a measurement or a plan of an IC model is valid for beyond the container: the packing and
 * the compute of one copy (a Q_max per copy on one packing says nothing about another).
 */
export const icFingerprintSchema = z.object({
  copies_per_instance: z.number().int().positive(),
  accelerators: z.number().nonnegative().nullable(),
  cpu_cores: z.number().nonnegative().nullable(),
  memory_mb: z.number().int().positive(),
});
export type IcFingerprint = z.infer<typeof icFingerprintSchema>;

export const icFingerprintOf = (ic: InferenceComponentConfig): IcFingerprint => ({
  copies_per_instance: ic.copies_per_instance,
  accelerators: ic.accelerators ?? null,
  cpu_cores: ic.cpu_cores ?? null,
  memory_mb: ic.memory_mb,
});

export const icFingerprintLabel = (fp: IcFingerprint | undefined): string =>
  fp === undefined
    ? 'variant (no inference component)'
    : `${fp.copies_per_instance} copies/instance, ${fp.accelerators ?? 0} accelerators, ${fp.cpu_cores ?? 0} vCPU, ${fp.memory_mb} MiB per copy`;

/** Names shared by the deployable side (CDK, local apply) and its read-back (validate, drift). */
export const IC_NAMESPACE = 'AWS/SageMaker';
export const IC_DIMENSION = 'InferenceComponentName';
export const IC_SCALABLE_DIMENSION = 'sagemaker:inference-component:DesiredCopyCount';
export const icResourceId = (componentName: string): string => `inference-component/${componentName}`;
/** The target-tracking policy's name. */
export const icTargetPolicyName = (ic: { endpoint: string; component_name: string }): string =>
  `scalegate-${ic.endpoint}-${ic.component_name}-copies`;

/** What is deployed for one component, as SageMaker, Application Auto Scaling and CloudWatch report it. */
export interface IcDeployedState {
  component: {
    name: string;
    endpoint: string;
    variant: string | null;
    status: string;
    accelerators: number | null;
    cpuCores: number | null;
    memoryMb: number | null;
    /** The component's model's environment (null: the model could not be described). */
    environment: Record<string, string> | null;
  } | null;
  managedInstanceScaling: { status: string | null; min: number | null; max: number | null } | null;
  scalableTarget: { min: number | null; max: number | null } | null;
  policies: ScalingPolicy[];
  alarms: Map<string, MetricAlarm>;
  error: string | null;
}

/** Instance families with accelerator devices (GPU, Inferentia, Trainium). */
const ACCELERATED_FAMILY = /^ml\.(g\d|p\d|inf\d|trn\d)/;

/**
 * Whether the copies packed on one instance share its accelerator device: they reserve none
 * (NumberOfAcceleratorDevicesRequired unset) on an instance that has one, and more than one fits.
 */
export function sharesDevice(
  ic: Pick<InferenceComponentConfig, 'accelerators' | 'copies_per_instance'>,
  instanceType: string,
): boolean {
  return (ic.accelerators ?? 0) < 1 && ic.copies_per_instance > 1 && ACCELERATED_FAMILY.test(instanceType);
}
