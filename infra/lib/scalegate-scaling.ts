/**
 * `scalegate/cdk`: the measured-plan gate and the scaling of a plan, for a team's own CDK app.
 * Built into dist/cdk.mjs (aws-cdk-lib and constructs stay external: the app's own copies are
 * used) with its declarations in dist/cdk.d.ts; see docs/cdk.md.
 *
 * `new ScalegateScaling(stack, id, { model })` reads `scalegate.config.json` and
 * `artifacts/plan-<model>.json` (relative to the working directory, where `cdk synth` runs),
 * runs the same gate as `scalegate gate` (the plan re-derived from its own measurements, its
 * fingerprint against the image being deployed, the region, its validate and drill proofs) and
 * throws when it refuses, so the synth fails naming each failed check and its fix. When it
 * passes, it adds the scalable target, the target-tracking scale-out policy, the step scale-in
 * policy with its alarm and (unless turned off) the alarms and dashboard, every number from the
 * plan through `expectedPolicyShape`, exactly what `scalegate validate` later compares with.
 * The model's container must get `containerEnvironment` (MAX_QUEUE_DEPTH = the plan's queue
 * depth).
 *
 * `new ScalegateInferenceComponent(stack, id, { model, image, executionRoleArn })` does the same
 * for a model with `kind: inference-component`: the same gate (which also refuses a plan whose
 * component, packing or copy bounds are not the config's), then the model, the endpoint hosting
 * the component, its copy-count scaling, the wake and idle rules and its alarms, every number
 * from the plan's `inference_component` block.
 *
 * The public types here name only aws-cdk-lib, constructs and plain values, so the emitted
 * declarations stand alone.
 */
import { resolve } from 'node:path';
import { Annotations, Stack, Token } from 'aws-cdk-lib';
import type * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct, DependencyGroup, type IDependable } from 'constructs';
import { modelImageDigest } from '../../src/model/asset-hash.js';
import {
  CONFIG_FILE,
  DEFAULT_ARTIFACTS_DIR,
  isUsageError,
  type ModelConfig,
  modelFromConfig,
  type PlanArtifact,
  readConfigFile,
  UsageError,
} from '../../src/model/index.js';
import { expectedPolicyShape, serviceMetricsEnvironment } from '../../src/plan/policy-shape.js';
import { EndpointAutoscaling } from './endpoint-autoscaling.js';
import { EndpointObservability } from './endpoint-observability.js';
import { InferenceComponentEndpoint } from './inference-component.js';
import { InferenceComponentObservability } from './inference-component-observability.js';
import { GateRefusedError, runSynthGate } from './synth-gate.js';

/** Where the gate reads the config, the plan and its proofs, and how strictly. */
export interface ScalegateGateProps {
  /** The model's name in the scalegate config (`models.<name>`). */
  readonly model: string;
  /** @default `scalegate.config.json` in the working directory */
  readonly configFile?: string;
  /** Where `plan-<model>.json`, its measurements and its proofs are. @default `artifacts` in the working directory */
  readonly artifactsDir?: string;
  /**
   * The digest of the image being deployed: the plan must have been measured on it (for an image
   * built by the app, `DockerImageAsset.assetHash`; for a pinned image, the hex after `@sha256:`).
   * @default the config's: the digest `image_uri` pins, or the CDK asset hash of `container_dir`
   */
  readonly imageDigest?: string;
  /** Region being deployed to. @default the stack's region (must then be concrete, not a token) */
  readonly region?: string;
  /**
   * Require the plan's proofs (a clean validate of it; with `require_drill`, a drill whose SLO
   * held). Off only to deploy the plan onto a calibration copy, which is where those proofs are made.
   * @default true
   */
  readonly requireProofs?: boolean;
  /** Pass a plan whose T_total is only a lower bound (`scalegate gate --allow-lower-bound`). @default false */
  readonly allowLowerBound?: boolean;
  /**
   * The Sigstore trust root the proofs' attestations are verified against (`gh attestation
   * trusted-root > trusted_root.jsonl`); required with the proofs unless `offline`.
   * @default the context `scalegate:trustedRoot`
   */
  readonly trustedRoot?: string;
  /**
   * Skip the attestation check (a development synth; warned in the synth output).
   * @default the context `scalegate:offline` is `true`
   */
  readonly offline?: boolean;
}

export interface ScalegateScalingProps extends ScalegateGateProps {
  /** @default the config's `endpoint` */
  readonly endpointName?: string;
  /** @default the config's `variant` */
  readonly variant?: string;
  /**
   * The endpoint: the scalable target is registered only once it exists. Without it, call
   * `dependOn(endpoint)` (the synth fails if neither was done).
   */
  readonly endpoint?: IDependable;
  /** Add the alarms (5XX, queue saturation, above target, service time) and the dashboard. @default true */
  readonly observability?: boolean;
}

/** The plan's deployable values, as the gate accepted them (re-derived, never the file's numbers). */
export interface ScalegateDeployable {
  readonly scalingMetric: string;
  readonly predefinedMetricType: string;
  readonly targetValue: number;
  readonly scaleInThreshold: number;
  readonly minCapacity: number;
  readonly maxCapacity: number;
  readonly scaleOutCooldownS: number;
  readonly scaleInCooldownS: number;
  readonly queueMaxDepth: number;
  readonly planRunId: string;
  readonly imageDigest: string;
}

interface Gated {
  modelName: string;
  model: ModelConfig;
  region: string;
  planFile: string;
  plan: PlanArtifact;
}

/** The gate, as `scalegate gate` runs it: the plan it accepted (re-derived), or a throw. */
function runGate(scope: Construct, what: string, props: ScalegateGateProps): Gated {
  const configFile = resolve(props.configFile ?? CONFIG_FILE);
  const artifactsDir = resolve(props.artifactsDir ?? DEFAULT_ARTIFACTS_DIR);
  const config = readConfigFile(configFile);
  const [modelName, model] = modelFromConfig(config, props.model, configFile);
  const region = props.region ?? Stack.of(scope).region;
  if (Token.isUnresolved(region)) {
    throw new UsageError(
      `${what} ${modelName}: the stack's region is not known at synth (an environment-agnostic stack); give the stack an env with a region, or pass \`region\`: the plan is checked against the region it was measured in.`,
    );
  }
  const imageDigest = props.imageDigest ?? modelImageDigest(model, configFile);
  const trustedRoot: string | undefined =
    props.trustedRoot ?? scope.node.tryGetContext('scalegate:trustedRoot');
  const gate = runSynthGate({
    modelName,
    model,
    artifactsDir,
    deployImageDigest: imageDigest,
    deployRegion: region,
    requireProofs: props.requireProofs !== false,
    allowLowerBound: props.allowLowerBound === true,
    attestation: {
      trustedRootFile: trustedRoot ? resolve(trustedRoot) : undefined,
      offline: props.offline ?? String(scope.node.tryGetContext('scalegate:offline')) === 'true',
      config: config.attestation,
    },
  });
  if (gate.offline) {
    Annotations.of(scope).addWarning(
      `${modelName}: OFFLINE: the proofs' attestations were NOT verified (${gate.offline === 'local' ? 'the local SageMaker' : 'offline: a development synth; a release never passes it'}).`,
    );
  }
  if (!gate.plan) {
    throw new GateRefusedError(gate.message ?? `${modelName}: refused`, modelName, gate.result);
  }
  return { modelName, model, region, planFile: gate.planFile, plan: gate.plan };
}

export class ScalegateScaling extends Construct {
  /** The plan file the gate read. */
  readonly planFile: string;
  readonly deployable: ScalegateDeployable;
  /** What the model's container environment must hold (MAX_QUEUE_DEPTH). */
  readonly containerEnvironment: Readonly<Record<string, string>>;
  readonly scalableTarget: appscaling.CfnScalableTarget;
  readonly scaleOutPolicy: appscaling.CfnScalingPolicy;
  readonly scaleInPolicy: appscaling.CfnScalingPolicy;
  readonly scaleInAlarm: cloudwatch.Alarm;
  /** Empty with `observability: false`. */
  readonly alarms: cloudwatch.Alarm[];
  private readonly endpointDependencies = new DependencyGroup();
  private endpointGiven = false;

  constructor(scope: Construct, id: string, props: ScalegateScalingProps) {
    super(scope, id);
    const { modelName, model, region, planFile, plan } = runGate(this, 'ScalegateScaling', props);
    this.planFile = planFile;
    if (plan.inference_component) {
      throw new UsageError(
        `ScalegateScaling ${modelName}: the plan deploys an inference component (${plan.inference_component.component_name}), not a variant's scaling: use ScalegateInferenceComponent.`,
      );
    }
    const target = {
      modelName,
      endpoint: props.endpointName ?? model.endpoint,
      variant: props.variant ?? model.variant,
    };
    const shape = expectedPolicyShape(target, plan);
    this.containerEnvironment = { ...shape.container.environment };
    this.deployable = {
      scalingMetric: shape.scalingMetric,
      predefinedMetricType: shape.scaleOut.predefinedMetricType,
      targetValue: shape.scaleOut.targetValue,
      scaleInThreshold: shape.scaleIn.alarm.threshold,
      minCapacity: shape.scalableTarget.minCapacity,
      maxCapacity: shape.scalableTarget.maxCapacity,
      scaleOutCooldownS: shape.scaleOut.scaleOutCooldownS,
      scaleInCooldownS: shape.scaleIn.cooldownS,
      queueMaxDepth: plan.deployable.queue_max_depth,
      planRunId: plan.run_id,
      imageDigest: plan.fingerprint.image_digest,
    };

    if (props.endpoint) this.dependOn(props.endpoint);
    const scaling = new EndpointAutoscaling(this, 'Autoscaling', {
      target,
      plan,
      endpoint: this.endpointDependencies,
    });
    this.scalableTarget = scaling.scalableTarget;
    this.scaleOutPolicy = scaling.scaleOutPolicy;
    this.scaleInPolicy = scaling.scaleInPolicy;
    this.scaleInAlarm = scaling.scaleInAlarm;
    this.alarms =
      props.observability === false
        ? []
        : new EndpointObservability(this, 'Observability', { shape: scaling.shape, region }).alarms;

    this.node.addValidation({
      validate: () =>
        this.endpointGiven
          ? []
          : [
              `ScalegateScaling ${modelName}: the scalable target must be registered after the endpoint exists: pass \`endpoint\` or call \`dependOn(endpoint)\`.`,
            ],
    });
  }

  /** Registers the scalable target only after `endpoint` (the CfnEndpoint) is created. */
  dependOn(endpoint: IDependable): void {
    this.endpointDependencies.add(endpoint);
    this.endpointGiven = true;
  }
}

export interface ScalegateInferenceComponentProps extends ScalegateGateProps {
  /** The container image every copy runs (the plan must have been measured on it: `imageDigest`). */
  readonly image: string;
  /** The SageMaker execution role of the model and of the endpoint config (a variant without a model needs one). */
  readonly executionRoleArn: string;
  /** The container's environment; the plan's `MAX_QUEUE_DEPTH` wins over one given here. @default the config's `container_env` */
  readonly environment?: Readonly<Record<string, string>>;
  /** Instance type of the variant. @default the config's `instance_type` (the measured one: the gate refuses another) */
  readonly instanceType?: string;
  /** Instances the endpoint starts with. @default the plan's instance minimum, at least 1 */
  readonly initialInstanceCount?: number;
  /** Copies the component is created with (SageMaker refuses 0). @default max(1, min copies) */
  readonly initialCopyCount?: number;
  /** Routing across copies. @default 'LEAST_OUTSTANDING_REQUESTS' */
  readonly routingStrategy?: 'LEAST_OUTSTANDING_REQUESTS' | 'RANDOM';
  /** Add the component's alarms (no capacity, copies above target, model errors, service time) and its dashboard. @default true */
  readonly observability?: boolean;
}

/** The component's deployable values, as the gate accepted them (re-derived, never the file's numbers). */
export interface ScalegateComponentDeployable {
  readonly componentName: string;
  readonly endpointName: string;
  readonly variantName: string;
  /** `SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution`. */
  readonly predefinedMetricType: string;
  /** Target in ConcurrentRequestsPerCopy units. */
  readonly copyTargetValue: number;
  readonly minCopies: number;
  readonly maxCopies: number;
  /** Managed instance scaling bounds. */
  readonly minInstances: number;
  readonly maxInstances: number;
  readonly scaleOutCooldownS: number;
  readonly scaleInCooldownS: number;
  /** Idle minutes before the component scales to zero copies; null when it keeps a copy. */
  readonly idleMinutes: number | null;
  /** The plan's wake from zero, seconds (measured or a bound); null when it keeps a copy. */
  readonly wakeS: number | null;
  readonly queueMaxDepth: number;
  readonly planRunId: string;
  readonly imageDigest: string;
}

/**
 * An endpoint hosting the plan's inference component, after the gate: the model (its environment
 * with the plan's `MAX_QUEUE_DEPTH` and the service-metric dimensions), an endpoint config with
 * managed instance scaling and a variant without a model, the endpoint, the component, copy-count
 * target tracking, the wake and idle rules (min copies 0) and the component's alarms.
 */
export class ScalegateInferenceComponent extends Construct {
  /** The plan file the gate read. */
  readonly planFile: string;
  readonly deployable: ScalegateComponentDeployable;
  /** What the model's container environment holds from the plan (MAX_QUEUE_DEPTH). */
  readonly containerEnvironment: Readonly<Record<string, string>>;
  readonly model: sagemaker.CfnModel;
  readonly endpointConfig: sagemaker.CfnEndpointConfig;
  readonly endpoint: sagemaker.CfnEndpoint;
  readonly component: sagemaker.CfnInferenceComponent;
  readonly scalableTarget: appscaling.CfnScalableTarget;
  readonly copyTargetPolicy: appscaling.CfnScalingPolicy;
  /** The wake alarm (one refused request adds a copy); null when the plan keeps a copy. */
  readonly wakeAlarm: cloudwatch.Alarm | null;
  /** The idle alarm (scale to exactly 0 copies); null when the plan keeps a copy. */
  readonly idleAlarm: cloudwatch.Alarm | null;
  /** The copy scale-in alarm (one copy fewer after low minutes with traffic); null when the plan keeps a copy. */
  readonly copyScaleInAlarm: cloudwatch.Alarm | null;
  /** Empty with `observability: false`. */
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: ScalegateInferenceComponentProps) {
    super(scope, id);
    const { modelName, model, region, planFile, plan } = runGate(this, 'ScalegateInferenceComponent', props);
    this.planFile = planFile;
    const ic = plan.inference_component;
    if (!ic) {
      throw new UsageError(
        `ScalegateInferenceComponent ${modelName}: the plan deploys a variant's scaling, not an inference component: use ScalegateScaling (or declare the model with kind "inference-component" and re-plan).`,
      );
    }
    this.containerEnvironment = { ...ic.container_environment };
    this.model = new sagemaker.CfnModel(this, 'Model', {
      executionRoleArn: props.executionRoleArn,
      primaryContainer: {
        image: props.image,
        mode: 'SingleModel',
        environment: {
          ...(props.environment ?? model.container_env),
          ...serviceMetricsEnvironment(ic.endpoint, ic.variant),
          ...ic.container_environment,
        },
      },
    });
    const hosted = new InferenceComponentEndpoint(this, 'Component', {
      plan: ic,
      instanceType: props.instanceType ?? model.instance_type,
      modelName: this.model.attrModelName,
      executionRoleArn: props.executionRoleArn,
      ...(props.initialInstanceCount !== undefined
        ? { initialInstanceCount: props.initialInstanceCount }
        : {}),
      ...(props.initialCopyCount !== undefined ? { initialCopyCount: props.initialCopyCount } : {}),
      ...(props.routingStrategy !== undefined ? { routingStrategy: props.routingStrategy } : {}),
    });
    this.endpointConfig = hosted.endpointConfig;
    this.endpoint = hosted.endpoint;
    this.component = hosted.component;
    this.scalableTarget = hosted.scalableTarget;
    this.copyTargetPolicy = hosted.copyTargetPolicy;
    this.wakeAlarm = hosted.wake?.alarm ?? null;
    this.idleAlarm = hosted.idle?.alarm ?? null;
    this.copyScaleInAlarm = hosted.copyScaleIn?.alarm ?? null;
    const z = ic.scale_to_zero;
    this.deployable = {
      componentName: ic.component_name,
      endpointName: ic.endpoint,
      variantName: ic.variant,
      predefinedMetricType: ic.copy_target.predefined_metric,
      copyTargetValue: ic.copy_target.value,
      minCopies: ic.copies.min,
      maxCopies: ic.copies.max,
      minInstances: ic.instances.min,
      maxInstances: ic.instances.max,
      scaleOutCooldownS: ic.copy_target.scale_out_cooldown_s,
      scaleInCooldownS: ic.copy_target.scale_in_cooldown_s,
      idleMinutes: z ? z.idle_minutes : null,
      wakeS: z ? z.wake_s : null,
      queueMaxDepth: plan.deployable.queue_max_depth,
      planRunId: plan.run_id,
      imageDigest: plan.fingerprint.image_digest,
    };
    this.alarms =
      props.observability === false
        ? []
        : new InferenceComponentObservability(this, 'Observability', { modelName, plan, region }).alarms;
  }
}

/** Whether an error is a refusal to report without a stack trace (the gate's, or a config mistake). */
export function isScalegateRefusal(e: unknown): e is Error {
  return e instanceof GateRefusedError || isUsageError(e);
}
