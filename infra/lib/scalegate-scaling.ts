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
 * The public types here name only aws-cdk-lib, constructs and plain values, so the emitted
 * declarations stand alone.
 */
import { resolve } from 'node:path';
import { Annotations, Stack, Token } from 'aws-cdk-lib';
import type * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct, DependencyGroup, type IDependable } from 'constructs';
import { modelImageDigest } from '../../src/model/asset-hash.js';
import {
  CONFIG_FILE,
  DEFAULT_ARTIFACTS_DIR,
  isUsageError,
  modelFromConfig,
  readConfigFile,
  UsageError,
} from '../../src/model/index.js';
import { expectedPolicyShape } from '../../src/plan/policy-shape.js';
import { EndpointAutoscaling } from './endpoint-autoscaling.js';
import { EndpointObservability } from './endpoint-observability.js';
import { GateRefusedError, runSynthGate } from './synth-gate.js';

export interface ScalegateScalingProps {
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
  /** @default the config's `endpoint` */
  readonly endpointName?: string;
  /** @default the config's `variant` */
  readonly variant?: string;
  /**
   * The endpoint: the scalable target is registered only once it exists. Without it, call
   * `dependOn(endpoint)` (the synth fails if neither was done).
   */
  readonly endpoint?: IDependable;
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
    const configFile = resolve(props.configFile ?? CONFIG_FILE);
    const artifactsDir = resolve(props.artifactsDir ?? DEFAULT_ARTIFACTS_DIR);
    const config = readConfigFile(configFile);
    const [modelName, model] = modelFromConfig(config, props.model, configFile);
    const stack = Stack.of(this);
    const region = props.region ?? stack.region;
    if (Token.isUnresolved(region)) {
      throw new UsageError(
        `ScalegateScaling ${modelName}: the stack's region is not known at synth (an environment-agnostic stack); give the stack an env with a region, or pass \`region\`: the plan is checked against the region it was measured in.`,
      );
    }
    const imageDigest = props.imageDigest ?? modelImageDigest(model, configFile);
    const trustedRoot: string | undefined =
      props.trustedRoot ?? this.node.tryGetContext('scalegate:trustedRoot');
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
        offline: props.offline ?? String(this.node.tryGetContext('scalegate:offline')) === 'true',
        config: config.attestation,
      },
    });
    this.planFile = gate.planFile;
    if (gate.offline) {
      Annotations.of(this).addWarning(
        `${modelName}: OFFLINE: the proofs' attestations were NOT verified (${gate.offline === 'local' ? 'the local SageMaker' : 'offline: a development synth; a release never passes it'}).`,
      );
    }
    if (!gate.plan) {
      throw new GateRefusedError(gate.message ?? `${modelName}: refused`, modelName, gate.result);
    }
    const plan = gate.plan;
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

/** Whether an error is a refusal to report without a stack trace (the gate's, or a config mistake). */
export function isScalegateRefusal(e: unknown): e is Error {
  return e instanceof GateRefusedError || isUsageError(e);
}
