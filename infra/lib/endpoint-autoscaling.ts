/**
 * EndpointAutoscaling: the scaling half of the deployed policy shape (src/plan/policy-shape.ts), built from
 * `expectedPolicyShape` so that every number (and name) deployed is the one `validate` expects.
 * Only the EndpointStack adds it, and only after the measured-plan gate passed.
 */
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct, type IDependable } from 'constructs';
import type { PlanArtifact } from '../../src/model/index.js';
import { expectedPolicyShape, type PolicyShape, type PolicyTarget } from '../../src/plan/policy-shape.js';
import { alarmFromShape } from './alarm.js';

export interface EndpointAutoscalingProps {
  /** Model, endpoint and variant the policy scales. */
  readonly target: PolicyTarget;
  /** The measured plan, already accepted by the gate: the only source of the numbers. */
  readonly plan: PlanArtifact;
  /** The endpoint: the scalable target is registered only once it exists. */
  readonly endpoint: IDependable;
}

export class EndpointAutoscaling extends Construct {
  readonly shape: PolicyShape;
  readonly scalableTarget: appscaling.CfnScalableTarget;
  readonly scaleOutPolicy: appscaling.CfnScalingPolicy;
  readonly scaleInPolicy: appscaling.CfnScalingPolicy;
  readonly scaleInAlarm: cloudwatch.Alarm;
  /** The tuned plan's step scale-out and its alarm; null when the plan has none. */
  readonly stepScaleOutPolicy: appscaling.CfnScalingPolicy | null = null;
  readonly stepScaleOutAlarm: cloudwatch.Alarm | null = null;

  constructor(scope: Construct, id: string, props: EndpointAutoscalingProps) {
    super(scope, id);
    const shape = expectedPolicyShape(props.target, props.plan);
    this.shape = shape;
    const t = shape.scalableTarget;

    // No RoleARN: Application Auto Scaling uses its SageMaker service-linked role.
    this.scalableTarget = new appscaling.CfnScalableTarget(this, 'ScalableTarget', {
      serviceNamespace: t.serviceNamespace,
      resourceId: t.resourceId,
      scalableDimension: t.scalableDimension,
      minCapacity: t.minCapacity,
      maxCapacity: t.maxCapacity,
      suspendedState: { ...t.suspendedState },
      // A tuned plan's scheduled actions (none: the property is left out, as before).
      ...(shape.scheduledActions.length > 0
        ? {
            scheduledActions: shape.scheduledActions.map((a) => ({
              scheduledActionName: a.scheduledActionName,
              schedule: a.schedule,
              timezone: a.timezone,
              scalableTargetAction: { minCapacity: a.minCapacity, maxCapacity: a.maxCapacity },
            })),
          }
        : {}),
    });
    this.scalableTarget.node.addDependency(props.endpoint);

    const out = shape.scaleOut;
    this.scaleOutPolicy = new appscaling.CfnScalingPolicy(this, 'ScaleOut', {
      policyName: out.policyName,
      policyType: out.policyType,
      scalingTargetId: this.scalableTarget.ref,
      targetTrackingScalingPolicyConfiguration: {
        predefinedMetricSpecification: { predefinedMetricType: out.predefinedMetricType },
        targetValue: out.targetValue,
        scaleOutCooldown: out.scaleOutCooldownS,
        disableScaleIn: out.disableScaleIn,
      },
    });

    const inn = shape.scaleIn;
    this.scaleInPolicy = new appscaling.CfnScalingPolicy(this, 'ScaleIn', {
      policyName: inn.policyName,
      policyType: inn.policyType,
      scalingTargetId: this.scalableTarget.ref,
      stepScalingPolicyConfiguration: {
        adjustmentType: inn.adjustmentType,
        cooldown: inn.cooldownS,
        metricAggregationType: inn.metricAggregationType,
        stepAdjustments: [
          {
            metricIntervalUpperBound: inn.metricIntervalUpperBound,
            scalingAdjustment: inn.scalingAdjustment,
          },
        ],
      },
    });

    this.scaleInAlarm = alarmFromShape(this, 'ScaleInAlarm', inn.alarm);
    const policyArn = this.scaleInPolicy.ref; // Ref of a ScalingPolicy is its ARN
    this.scaleInAlarm.addAlarmAction({ bind: () => ({ alarmActionArn: policyArn }) });

    const step = shape.stepScaleOut;
    if (step) {
      const policy = new appscaling.CfnScalingPolicy(this, 'StepScaleOut', {
        policyName: step.policyName,
        policyType: step.policyType,
        scalingTargetId: this.scalableTarget.ref,
        stepScalingPolicyConfiguration: {
          adjustmentType: step.adjustmentType,
          cooldown: step.cooldownS,
          metricAggregationType: step.metricAggregationType,
          stepAdjustments: step.steps.map((s) => ({
            metricIntervalLowerBound: s.metricIntervalLowerBound,
            ...(s.metricIntervalUpperBound === null
              ? {}
              : { metricIntervalUpperBound: s.metricIntervalUpperBound }),
            scalingAdjustment: s.scalingAdjustment,
          })),
        },
      });
      const alarm = alarmFromShape(this, 'StepScaleOutAlarm', step.alarm);
      const stepArn = policy.ref;
      alarm.addAlarmAction({ bind: () => ({ alarmActionArn: stepArn }) });
      this.stepScaleOutPolicy = policy;
      this.stepScaleOutAlarm = alarm;
    }
  }
}
