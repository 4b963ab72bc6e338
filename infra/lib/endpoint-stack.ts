/**
 * EndpointStack: the model's image, SageMaker Model (env includes MAX_QUEUE_DEPTH), EndpointConfig
 * (instance type, least-outstanding-requests routing) and Endpoint, plus scaling and
 * observability when the measured-plan gate passes.
 *
 * Modes:
 * - `production`: the gate decides. A passing plan adds EndpointAutoscaling and
 *   EndpointObservability, every number from the plan. A failing gate throws GateRefusedError
 *   (synth fails with the checks and their fixes), unless the model is in
 *   `scalegate:allowUnmeasured`: then fixed capacity (min_instances_floor instances), no scaling
 *   resources, and a warning annotation. A plan that passes always wins over the flag, so a flag
 *   left behind can never silently remove measured scaling.
 * - `calibration`: `<endpoint>-calibration`, one instance, same image and instance type, a
 *   scalable target registered (min 1, max 2, no policies) so that qmax's freeze and ttotal's
 *   forced scale-out behave as on the real endpoint. No gate: it produces the measurement. It
 *   runs with the calibration execution role the CI-access stack created (imported by ARN, never
 *   changed), is deployed through the calibration bootstrap, and every resource carries the
 *   calibration tag (see calibration.ts).
 *   With a plan (`--with-plan`), the calibration endpoint gets the plan exactly as production
 *   would, through the same constructs: the plan's fleet, EndpointAutoscaling,
 *   EndpointObservability and MAX_QUEUE_DEPTH, after the gate's checks of the plan (the proofs a
 *   release needs, a validate and a drill of it, are what this deploy produces, so not those).
 *   Both scalable targets have the same logical id: re-deploying the endpoint with the plan
 *   updates its target in place (a new one beside the old would be deregistered with the old).
 *
 * An inference-component model (`kind: inference-component`) whose plan passes the production gate
 * is deployed as that plan's component (InferenceComponentEndpoint: an endpoint config with
 * managed instance scaling and a variant without a model, the component, copy-count target
 * tracking, the wake and idle rules) with InferenceComponentObservability, every number from the
 * re-derived plan's `inference_component` block. The gate's `plan_config` check refuses a plan
 * whose component (name, packing, copy bounds, wake settings) is not the config's, or a variant
 * plan for a component model; `rederived` refuses a block edited by hand.
 *
 * Every model gets SCALEGATE_ENDPOINT_NAME / SCALEGATE_VARIANT_NAME in its environment: the
 * dimensions of the container's own service-time metric (SageMaker does not tell a container
 * which endpoint it serves).
 */
import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct } from 'constructs';
import {
  candidateCalibrationEndpoint,
  type ModelConfig,
  type PlanArtifact,
  UsageError,
} from '../../src/model/index.js';
import type { GateResult } from '../../src/plan/gate.js';
import {
  expectedPolicyShape,
  type PolicyShape,
  type PolicyTarget,
  scalableResourceId,
  serviceMetricsEnvironment,
} from '../../src/plan/policy-shape.js';
import { calibrationSynthesizer, importCalibrationExecutionRole, tagCalibration } from './calibration.js';
import { EndpointAutoscaling } from './endpoint-autoscaling.js';
import { EndpointObservability } from './endpoint-observability.js';
import { modelImage } from './image.js';
import { InferenceComponentEndpoint } from './inference-component.js';
import { InferenceComponentObservability } from './inference-component-observability.js';
import { GateRefusedError, runSynthGate, type SynthAttestation } from './synth-gate.js';

/**
 * Admission bound on the calibration endpoint: high enough that the qmax ladder is never cut by
 * 503s (the measurement_trust finding requires an unbounded queue during the ladder). Q_max is
 * what the production MAX_QUEUE_DEPTH is later set from.
 */
export const CALIBRATION_MAX_QUEUE_DEPTH = '100000';

export type EndpointMode =
  | {
      kind: 'production';
      artifactsDir: string;
      allowUnmeasured: boolean;
      allowLowerBound?: boolean;
      /** The proofs' attestations (`scalegate:trustedRoot`, `scalegate:offline`). */
      attestation?: SynthAttestation;
    }
  /** `withPlan`: the plan file to deploy and where its measurements are. */
  | {
      kind: 'calibration';
      withPlan?: { planFile: string; artifactsDir: string };
      /** A compare candidate (n >= 1): the endpoint is `<endpoint>-cal-<n>` (the model given is the candidate's). */
      candidate?: number;
    };

export interface EndpointStackProps extends StackProps {
  readonly modelName: string;
  readonly model: ModelConfig;
  /** Repository root: container_dir is relative to it. */
  readonly repoRoot: string;
  /**
   * Production's SageMaker execution role (its foundation stack's). A calibration stack ignores
   * it: it runs with the CI-access stack's calibration execution role, imported by ARN.
   */
  readonly executionRole?: iam.IRole;
  readonly mode: EndpointMode;
}

/** `calibration-measured`: the calibration endpoint with a plan's policy (`--with-plan`). */
export type ScalingOutcome = 'measured' | 'unmeasured-fixed' | 'calibration' | 'calibration-measured';

export class EndpointStack extends Stack {
  readonly endpointName: string;
  readonly imageDigest: string;
  readonly scaling: ScalingOutcome;
  readonly gate: GateResult | null = null;
  readonly shape: PolicyShape | null = null;
  readonly endpoint: sagemaker.CfnEndpoint;
  /** The component of an inference-component plan; null for a variant. */
  readonly inferenceComponent: InferenceComponentEndpoint | null = null;

  constructor(scope: Construct, id: string, props: EndpointStackProps) {
    const calibration = props.mode.kind === 'calibration';
    super(scope, id, {
      ...props,
      synthesizer: props.synthesizer ?? (calibration ? calibrationSynthesizer() : undefined),
    });
    const { modelName, model, mode } = props;
    const executionRole = calibration ? importCalibrationExecutionRole(this) : props.executionRole;
    if (!executionRole) throw new Error(`${id}: a production endpoint stack needs its execution role`);
    this.endpointName =
      mode.kind === 'calibration'
        ? candidateCalibrationEndpoint(model.endpoint, mode.candidate ?? 0)
        : model.endpoint;
    if (calibration) tagCalibration(this, modelName);

    const image = modelImage(this, modelName, model, props.repoRoot);
    this.imageDigest = image.digest;

    // The gate runs as soon as the digest of the image being deployed is known.
    let environment: Record<string, string> = {
      ...model.container_env,
      ...serviceMetricsEnvironment(this.endpointName, model.variant),
    };
    let instanceCount = 1;
    let plan: PlanArtifact | null = null;
    if (mode.kind === 'production') {
      const gate = runSynthGate({
        modelName,
        model,
        artifactsDir: mode.artifactsDir,
        deployImageDigest: image.digest,
        deployRegion: this.region,
        requireProofs: true,
        allowLowerBound: mode.allowLowerBound === true,
        ...(mode.attestation ? { attestation: mode.attestation } : {}),
      });
      this.gate = gate.result;
      if (gate.offline) {
        Annotations.of(this).addWarning(
          gate.offline === 'local'
            ? `${modelName}: OFFLINE: the proofs' attestations were NOT verified (the local SageMaker: nothing is attested locally).`
            : `scalegate:offline=true: ${modelName}: OFFLINE: the proofs' attestations were NOT verified (a development synth; a release never passes it).`,
        );
      }
      if (gate.plan) {
        plan = gate.plan;
        this.scaling = 'measured';
        instanceCount = plan.deployable.min_instances;
        if (plan.measured.t_total_origin === 'lower-bound') {
          // Only reachable with scalegate:allowLowerBound: deployed, and said so in the synth output.
          Annotations.of(this).addWarning(
            `scalegate:allowLowerBound=${modelName}: the plan's T_total ${plan.measured.t_total_s} s is only a LOWER BOUND (traffic never recovered in ttotal): its cooldowns and surge probability can only be too low.`,
          );
        }
      } else if (mode.allowUnmeasured) {
        this.scaling = 'unmeasured-fixed';
        instanceCount = model.min_instances_floor;
        Annotations.of(this).addWarning(
          `scalegate:allowUnmeasured=${modelName}: deploying ${this.endpointName} at a fixed ${instanceCount} instance(s) with NO autoscaling and no scalegate alarms; ` +
            `MAX_QUEUE_DEPTH is ${environment.MAX_QUEUE_DEPTH ?? "the container's default"}. For bootstrapping a first measurement only.\n${gate.message}`,
        );
      } else {
        throw new GateRefusedError(
          `${gate.message}\nTo deploy ${modelName} at fixed capacity without scaling (to bootstrap a first measurement), synthesize with -c scalegate:allowUnmeasured=${modelName}.`,
          modelName,
          gate.result,
        );
      }
    } else if (mode.withPlan) {
      const gate = runSynthGate({
        modelName,
        model,
        artifactsDir: mode.withPlan.artifactsDir,
        planFile: mode.withPlan.planFile,
        deployImageDigest: image.digest,
        deployRegion: this.region,
        requireProofs: false,
      });
      this.gate = gate.result;
      if (!gate.plan) {
        throw new GateRefusedError(
          `${gate.message}\nThe calibration endpoint is deployed with a plan only when the plan passes the gate's checks for this image; deploy it without --with-plan to measure.`,
          modelName,
          gate.result,
        );
      }
      plan = gate.plan;
      this.scaling = 'calibration-measured';
      instanceCount = plan.deployable.min_instances;
    } else {
      this.scaling = 'calibration';
      environment = {
        ...environment,
        MAX_QUEUE_DEPTH: environment.MAX_QUEUE_DEPTH ?? CALIBRATION_MAX_QUEUE_DEPTH,
      };
    }

    const target: PolicyTarget = { modelName, endpoint: this.endpointName, variant: model.variant };
    const ic = plan?.inference_component ?? null;
    if (ic && mode.kind === 'calibration') {
      throw new UsageError(
        `${modelName}: the calibration endpoint is not deployed with an inference-component plan by the CDK app yet (its component would take production's name ${ic.component_name}); apply the plan to the calibration copy with \`scalegate local apply\` locally, or deploy it to production through the gate.`,
      );
    }
    if (ic) {
      // The component's model carries the block's environment (MAX_QUEUE_DEPTH per copy).
      environment = { ...environment, ...ic.container_environment };
    } else if (plan) {
      // The same shape EndpointAutoscaling builds from: the container's MAX_QUEUE_DEPTH is the
      // plan's queue_max_depth (the plan wins over any MAX_QUEUE_DEPTH in container_env).
      this.shape = expectedPolicyShape(target, plan);
      environment = { ...environment, ...this.shape.container.environment };
    }

    // Production's execution role (its foundation stack) gets the pull of exactly this image. The
    // calibration role is imported and never changed here: the CI-access stack already grants it
    // the pulls of the calibration images (a pull request's stack writes no IAM policy).
    let pull: iam.Policy | null = null;
    if (!calibration) {
      pull = new iam.Policy(this, 'ImagePull', { statements: image.pullStatements });
      pull.attachToRole(executionRole);
    }
    const sm = this.createModel(executionRole, image.imageUri, environment, pull);
    if (plan && ic) {
      const component = new InferenceComponentEndpoint(this, 'InferenceComponent', {
        plan: ic,
        instanceType: model.instance_type,
        modelName: sm.attrModelName,
        executionRoleArn: executionRole.roleArn,
      });
      this.inferenceComponent = component;
      this.endpoint = component.endpoint;
      new InferenceComponentObservability(this, 'Observability', {
        modelName,
        plan,
        region: this.region,
      });
    } else {
      // Only a measured fleet keeps its size across endpoint-config updates (autoscaling owns
      // it); a fixed fleet follows the config.
      this.endpoint = this.createEndpoint(props, sm, instanceCount, plan !== null);
    }

    // A component is scaled by its copies and managed instance scaling: no variant target.
    if (plan && !ic) {
      const scaling = new EndpointAutoscaling(this, 'Autoscaling', { target, plan, endpoint: this.endpoint });
      new EndpointObservability(this, 'Observability', { shape: scaling.shape, region: this.region });
    } else if (calibration) {
      // Registered so that freeze (suspend) and forced scale-out behave as on the real endpoint;
      // no policies: nothing scales it but the measurement itself. At EndpointAutoscaling's path,
      // so that a deploy with the plan updates this very target.
      const scalable = new appscaling.CfnScalableTarget(
        new Construct(this, 'Autoscaling'),
        'ScalableTarget',
        {
          serviceNamespace: 'sagemaker',
          resourceId: scalableResourceId(this.endpointName, model.variant),
          scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
          minCapacity: 1,
          maxCapacity: 2,
        },
      );
      scalable.node.addDependency(this.endpoint);
    }

    new CfnOutput(this, 'EndpointName', { value: this.endpointName });
    new CfnOutput(this, 'ImageDigest', { value: this.imageDigest });
    new CfnOutput(this, 'Scaling', { value: this.scaling });
  }

  private createModel(
    executionRole: iam.IRole,
    imageUri: string,
    environment: Record<string, string>,
    pull: iam.Policy | null,
  ): sagemaker.CfnModel {
    const sm = new sagemaker.CfnModel(this, 'Model', {
      executionRoleArn: executionRole.roleArn,
      primaryContainer: { image: imageUri, mode: 'SingleModel', environment },
    });
    if (pull) sm.node.addDependency(pull);
    return sm;
  }

  private createEndpoint(
    props: EndpointStackProps,
    sm: sagemaker.CfnModel,
    instanceCount: number,
    retainVariantProperties: boolean,
  ): sagemaker.CfnEndpoint {
    const { model } = props;
    const config = new sagemaker.CfnEndpointConfig(this, 'EndpointConfig', {
      productionVariants: [
        {
          variantName: model.variant,
          modelName: sm.attrModelName,
          instanceType: model.instance_type,
          initialInstanceCount: instanceCount,
          initialVariantWeight: 1,
          routingConfig: { routingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
        },
      ],
    });
    return new sagemaker.CfnEndpoint(this, 'Endpoint', {
      endpointName: this.endpointName,
      endpointConfigName: config.attrEndpointConfigName,
      // A deploy must not reset a scaled-out fleet to initialInstanceCount: keep the variant's
      // current desired count and weight across endpoint-config updates.
      retainAllVariantProperties: retainVariantProperties,
    });
  }
}
