/**
 * InferenceComponentEndpoint: an endpoint hosting one inference component, every number from the
 * plan's `inference_component` block (src/model/artifacts/inference-component.ts), under the
 * names `scalegate validate` reads back (src/plan/inference-component-rows.ts):
 * - an endpoint config whose variant names no model (it carries the execution role) with managed
 *   instance scaling within the plan's instance bounds, and the endpoint;
 * - the component: its model, compute per copy, and the runtime copy count;
 * - Application Auto Scaling on `sagemaker:inference-component:DesiredCopyCount` (min/max copies)
 *   with target tracking on the predefined per-copy high-resolution concurrency metric;
 * - for min copies 0: the wake step policy (+1 copy) on a `NoCapacityInvocationFailures` alarm one
 *   request trips (Sum >= 1 in 60 s, 1 of 1), the idle step policy (exactly 0 copies) on an
 *   `Invocations` alarm after the plan's idle minutes, and the copy scale-in step policy (one copy
 *   fewer after 15 low minutes with traffic) in place of the target tracking's scale-in, which is
 *   disabled (it would undo a wake).
 */
import { Duration } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct } from 'constructs';
import { type IcStepPolicy, type InferenceComponentPlan, icStepAdjustments } from '../../src/model/index.js';
import {
  IC_DIMENSION,
  IC_NAMESPACE,
  IC_SCALABLE_DIMENSION,
  icResourceId,
  icTargetPolicyName,
} from '../../src/plan/inference-component-rows.js';

export interface InferenceComponentEndpointProps {
  /** The plan's component block, from a plan the gate accepted. */
  readonly plan: InferenceComponentPlan;
  /** Instance type of the variant (the measured one). */
  readonly instanceType: string;
  /** The SageMaker model every copy runs (its environment carries the plan's MAX_QUEUE_DEPTH). */
  readonly modelName: string;
  /** The execution role the endpoint config carries (a variant without a model needs one). */
  readonly executionRoleArn: string;
  /** Instances the endpoint starts with. @default the plan's instance minimum, at least 1 */
  readonly initialInstanceCount?: number;
  /** Copies the component is created with (SageMaker refuses 0). @default max(1, min copies) */
  readonly initialCopyCount?: number;
  /** Routing across copies. @default 'LEAST_OUTSTANDING_REQUESTS' */
  readonly routingStrategy?: 'LEAST_OUTSTANDING_REQUESTS' | 'RANDOM';
}

export class InferenceComponentEndpoint extends Construct {
  readonly endpointConfig: sagemaker.CfnEndpointConfig;
  readonly endpoint: sagemaker.CfnEndpoint;
  readonly component: sagemaker.CfnInferenceComponent;
  readonly scalableTarget: appscaling.CfnScalableTarget;
  readonly copyTargetPolicy: appscaling.CfnScalingPolicy;
  /** The wake and idle rules; null when the plan keeps at least one copy. */
  readonly wake: { policy: appscaling.CfnScalingPolicy; alarm: cloudwatch.Alarm } | null = null;
  readonly idle: { policy: appscaling.CfnScalingPolicy; alarm: cloudwatch.Alarm } | null = null;
  /** The copy scale-in rule (min copies 0; null in plans without one). */
  readonly copyScaleIn: { policy: appscaling.CfnScalingPolicy; alarm: cloudwatch.Alarm } | null = null;

  constructor(scope: Construct, id: string, props: InferenceComponentEndpointProps) {
    super(scope, id);
    const ic = props.plan;
    this.endpointConfig = new sagemaker.CfnEndpointConfig(this, 'EndpointConfig', {
      executionRoleArn: props.executionRoleArn,
      productionVariants: [
        {
          variantName: ic.variant,
          instanceType: props.instanceType,
          initialInstanceCount: props.initialInstanceCount ?? Math.max(1, ic.instances.min),
          managedInstanceScaling: {
            status: 'ENABLED',
            minInstanceCount: ic.instances.min,
            maxInstanceCount: ic.instances.max,
          },
          routingConfig: { routingStrategy: props.routingStrategy ?? 'LEAST_OUTSTANDING_REQUESTS' },
        },
      ],
    });
    this.endpoint = new sagemaker.CfnEndpoint(this, 'Endpoint', {
      endpointName: ic.endpoint,
      endpointConfigName: this.endpointConfig.attrEndpointConfigName,
    });
    this.component = new sagemaker.CfnInferenceComponent(this, 'Component', {
      inferenceComponentName: ic.component_name,
      endpointName: this.endpoint.attrEndpointName,
      variantName: ic.variant,
      specification: {
        modelName: props.modelName,
        computeResourceRequirements: {
          ...(ic.packing.accelerators !== null
            ? { numberOfAcceleratorDevicesRequired: ic.packing.accelerators }
            : {}),
          ...(ic.packing.cpu_cores !== null ? { numberOfCpuCoresRequired: ic.packing.cpu_cores } : {}),
          minMemoryRequiredInMb: ic.packing.memory_mb,
        },
      },
      runtimeConfig: { copyCount: props.initialCopyCount ?? Math.max(1, ic.copies.min) },
    });

    // No RoleARN: Application Auto Scaling uses its SageMaker service-linked role.
    this.scalableTarget = new appscaling.CfnScalableTarget(this, 'ScalableTarget', {
      serviceNamespace: 'sagemaker',
      resourceId: icResourceId(ic.component_name),
      scalableDimension: IC_SCALABLE_DIMENSION,
      minCapacity: ic.copies.min,
      maxCapacity: ic.copies.max,
    });
    this.scalableTarget.node.addDependency(this.component);
    this.copyTargetPolicy = new appscaling.CfnScalingPolicy(this, 'CopyTarget', {
      policyName: icTargetPolicyName(ic),
      policyType: 'TargetTrackingScaling',
      scalingTargetId: this.scalableTarget.ref,
      targetTrackingScalingPolicyConfiguration: {
        predefinedMetricSpecification: { predefinedMetricType: ic.copy_target.predefined_metric },
        targetValue: ic.copy_target.value,
        scaleOutCooldown: ic.copy_target.scale_out_cooldown_s,
        scaleInCooldown: ic.copy_target.scale_in_cooldown_s,
        disableScaleIn: ic.copy_target.disable_scale_in,
      },
    });
    const z = ic.scale_to_zero;
    if (z) {
      this.wake = this.stepRule('Wake', ic, z.wake);
      this.idle = this.stepRule('Idle', ic, z.idle_scale_in);
      if (z.copy_scale_in) this.copyScaleIn = this.stepRule('CopyScaleIn', ic, z.copy_scale_in);
    }
  }

  private stepRule(
    id: string,
    ic: InferenceComponentPlan,
    step: IcStepPolicy,
  ): { policy: appscaling.CfnScalingPolicy; alarm: cloudwatch.Alarm } {
    const policy = new appscaling.CfnScalingPolicy(this, `${id}Policy`, {
      policyName: step.name,
      policyType: 'StepScaling',
      scalingTargetId: this.scalableTarget.ref,
      stepScalingPolicyConfiguration: {
        adjustmentType: step.adjustment_type,
        cooldown: step.cooldown_s,
        metricAggregationType: 'Maximum',
        stepAdjustments: icStepAdjustments(step).map((a) => ({
          metricIntervalLowerBound: a.MetricIntervalLowerBound,
          metricIntervalUpperBound: a.MetricIntervalUpperBound,
          scalingAdjustment: a.ScalingAdjustment,
        })),
      },
    });
    const a = step.alarm;
    const alarm = new cloudwatch.Alarm(this, `${id}Alarm`, {
      alarmName: a.name,
      metric: new cloudwatch.Metric({
        namespace: IC_NAMESPACE,
        metricName: a.metric,
        dimensionsMap: { [IC_DIMENSION]: ic.component_name },
        statistic: a.statistic,
        period: Duration.seconds(a.period_s),
      }),
      threshold: a.threshold,
      evaluationPeriods: a.evaluation_periods,
      datapointsToAlarm: a.datapoints_to_alarm,
      comparisonOperator: a.comparison as cloudwatch.ComparisonOperator,
      treatMissingData: a.missing_data as cloudwatch.TreatMissingData,
    });
    const arn = policy.ref; // Ref of a ScalingPolicy is its ARN
    alarm.addAlarmAction({ bind: () => ({ alarmActionArn: arn }) });
    return { policy, alarm };
  }
}
