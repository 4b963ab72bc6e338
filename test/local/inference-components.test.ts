// Inference components in the local SageMaker, driven only through the real SDK v3 clients over
// loopback: an endpoint hosting components with managed instance scaling (min 0), copies placed on
// instances with room (warm) or on a new instance (cold), scale to zero and the no-capacity error,
// the wake from zero by a step scaling policy on NoCapacityInvocationFailures, and the per-copy
// concurrency metric. Tests run in order on one emulator (the fake container keeps them fast).
import {
  DeregisterScalableTargetCommand,
  DescribeScalingActivitiesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  DescribeAlarmsCommand,
  GetMetricStatisticsCommand,
  ListMetricsCommand,
  PutMetricAlarmCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateInferenceComponentCommand,
  CreateModelCommand,
  DeleteInferenceComponentCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeInferenceComponentCommand,
  ListInferenceComponentsCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
  UpdateInferenceComponentCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import {
  InvokeEndpointCommand,
  InvokeEndpointWithResponseStreamCommand,
} from '@aws-sdk/client-sagemaker-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor, eventually, fakeContainer, rejectionOf } from './helpers.js';

const ENDPOINT = 'ic-endpoint';
const IC = 'ic-tts';
/** Long enough that a describe right after a request still sees the instance provisioning. */
const PROVISION_S = 1.5;
const body = (chunks = 1, chunkDelayMs = 5) =>
  new TextEncoder().encode(JSON.stringify({ text: 'hello', chunks, chunkDelayMs }));

let h: LocalSageMakerHandle;
let c: ReturnType<typeof clientsFor>;

beforeAll(async () => {
  h = await startLocalSageMaker({
    container: fakeContainer({ READY_DELAY_MS: '50' }),
    provisionDelayS: PROVISION_S,
    endpointName: 'plain-endpoint',
    alarmEvaluationIntervalMs: 200,
  });
  c = clientsFor(h);
}, 120_000);

afterAll(async () => {
  c?.destroy();
  await h?.close();
});

const describeIc = () =>
  c.sagemaker.send(new DescribeInferenceComponentCommand({ InferenceComponentName: IC }));
const instances = async () => {
  const d = await c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: ENDPOINT }));
  const v = d.ProductionVariants?.[0];
  return { desired: v?.DesiredInstanceCount, current: v?.CurrentInstanceCount, status: d.EndpointStatus };
};
const settled = (copies: number) =>
  eventually(async () => {
    const d = await describeIc();
    return d.InferenceComponentStatus === 'InService' && d.RuntimeConfig?.CurrentCopyCount === copies
      ? d
      : undefined;
  }, 90_000);
const setCopies = (n: number) =>
  c.sagemaker.send(
    new UpdateInferenceComponentRuntimeConfigCommand({
      InferenceComponentName: IC,
      DesiredRuntimeConfig: { CopyCount: n },
    }),
  );
const invoke = (chunks?: number, delay?: number) =>
  c.runtime.send(
    new InvokeEndpointCommand({
      EndpointName: ENDPOINT,
      InferenceComponentName: IC,
      Body: body(chunks, delay),
      ContentType: 'application/json',
    }),
  );

describe('inference components on the local SageMaker', () => {
  it('creates an endpoint that hosts components (no model, managed instance scaling min 0), so IC deployments can be rehearsed', async () => {
    await c.sagemaker.send(
      new CreateModelCommand({
        ModelName: 'ic-model',
        PrimaryContainer: { Image: h.imageUri, Environment: { MAX_QUEUE_DEPTH: '8' } },
        ExecutionRoleArn: `arn:aws:iam::${h.accountId}:role/r`,
      }),
    );
    const missingRole = await rejectionOf(
      c.sagemaker.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: 'ic-config-no-role',
          ProductionVariants: [
            { VariantName: 'AllTraffic', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 },
          ],
        }),
      ),
    );
    expect(missingRole.name).toBe('ValidationException');
    await c.sagemaker.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: 'ic-config',
        ExecutionRoleArn: `arn:aws:iam::${h.accountId}:role/r`,
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            InstanceType: 'ml.g5.xlarge',
            InitialInstanceCount: 1,
            ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 0, MaxInstanceCount: 2 },
            RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
          },
        ],
      }),
    );
    const config = await c.sagemaker.send(
      new DescribeEndpointConfigCommand({ EndpointConfigName: 'ic-config' }),
    );
    expect(config.ProductionVariants?.[0]?.ModelName).toBeUndefined();
    expect(config.ProductionVariants?.[0]?.ManagedInstanceScaling).toEqual({
      Status: 'ENABLED',
      MinInstanceCount: 0,
      MaxInstanceCount: 2,
    });
    await c.sagemaker.send(
      new CreateEndpointCommand({ EndpointName: ENDPOINT, EndpointConfigName: 'ic-config' }),
    );
    expect(await instances()).toEqual({ desired: 1, current: 0, status: 'Creating' });
    await eventually(async () => ((await instances()).status === 'InService' ? true : undefined), 30_000);
    expect(await instances()).toEqual({ desired: 1, current: 1, status: 'InService' });
    // Invoking it without naming a component is SageMaker's ValidationError.
    const bare = await rejectionOf(
      c.runtime.send(new InvokeEndpointCommand({ EndpointName: ENDPOINT, Body: body() })),
    );
    expect(bare.name).toBe('ValidationError');
    expect(bare.message).toMatch(/^Inference Component Name header is required for endpoints/);
  });

  it('places a copy on the running instance (warm), serves it, and refuses a creation with 0 copies', async () => {
    const zero = await rejectionOf(
      c.sagemaker.send(
        new CreateInferenceComponentCommand({
          InferenceComponentName: 'ic-zero',
          EndpointName: ENDPOINT,
          Specification: {
            ModelName: 'ic-model',
            ComputeResourceRequirements: { MinMemoryRequiredInMb: 1024 },
          },
          RuntimeConfig: { CopyCount: 0 },
        }),
      ),
    );
    expect(zero.name).toBe('ValidationException');
    await c.sagemaker.send(
      new CreateInferenceComponentCommand({
        InferenceComponentName: IC,
        EndpointName: ENDPOINT,
        VariantName: 'AllTraffic',
        // Two copies fit on one ml.g5.xlarge (4 vCPU, 16 GiB), a third does not.
        Specification: {
          ModelName: 'ic-model',
          ComputeResourceRequirements: { NumberOfCpuCoresRequired: 2, MinMemoryRequiredInMb: 4096 },
        },
        RuntimeConfig: { CopyCount: 1 },
      }),
    );
    expect((await describeIc()).InferenceComponentStatus).toBe('Creating');
    const d = await settled(1);
    expect(d.RuntimeConfig).toEqual({ DesiredCopyCount: 1, CurrentCopyCount: 1 });
    expect(d.Specification?.ComputeResourceRequirements).toEqual({
      NumberOfCpuCoresRequired: 2,
      MinMemoryRequiredInMb: 4096,
    });
    expect(await instances()).toEqual({ desired: 1, current: 1, status: 'InService' });
    const out = await invoke();
    expect(new TextDecoder().decode(out.Body)).toBe('chunk-0;');
    const stream = await c.runtime.send(
      new InvokeEndpointWithResponseStreamCommand({
        EndpointName: ENDPOINT,
        InferenceComponentName: IC,
        Body: body(2),
        ContentType: 'application/json',
      }),
    );
    let streamed = '';
    for await (const part of stream.Body ?? []) streamed += new TextDecoder().decode(part.PayloadPart?.Bytes);
    expect(streamed).toBe('chunk-0;chunk-1;');
    const listed = await c.sagemaker.send(
      new ListInferenceComponentsCommand({ EndpointNameEquals: ENDPOINT }),
    );
    expect(listed.InferenceComponents?.map((i) => i.InferenceComponentName)).toEqual([IC]);
  });

  it('a second copy with room on the instance launches no instance; a third without room launches one (cold)', async () => {
    await setCopies(2);
    await settled(2);
    expect(await instances()).toEqual({ desired: 1, current: 1, status: 'InService' });
    await setCopies(3);
    // The instance is requested at once and provisions for PROVISION_S before the copy can start.
    expect(await instances()).toMatchObject({ desired: 2 });
    expect((await describeIc()).InferenceComponentStatus).toBe('Updating');
    await settled(3);
    expect(await instances()).toEqual({ desired: 2, current: 2, status: 'InService' });
  });

  it('ConcurrentRequestsPerCopy publishes the busiest copy, not the component total', async () => {
    await setCopies(2);
    await settled(2);
    await eventually(async () => ((await instances()).desired === 1 ? true : undefined), 30_000);
    const start = new Date(Date.now() - 60_000);
    // Four requests held ~1 s each over two copies: least outstanding puts two on each.
    await Promise.all(Array.from({ length: 4 }, () => invoke(4, 250)));
    const stats = await c.cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'AWS/SageMaker',
        MetricName: 'ConcurrentRequestsPerCopy',
        Dimensions: [{ Name: 'InferenceComponentName', Value: IC }],
        StartTime: start,
        EndTime: new Date(Date.now() + 60_000),
        Period: 60,
        Statistics: ['Maximum'],
      }),
    );
    expect(Math.max(...(stats.Datapoints ?? []).map((p) => p.Maximum ?? 0))).toBe(2);
    // The component's invocation metrics carry its name as their only dimension.
    const listed = await c.cloudwatch.send(
      new ListMetricsCommand({
        Namespace: 'AWS/SageMaker',
        Dimensions: [{ Name: 'InferenceComponentName', Value: IC }],
      }),
    );
    expect(listed.Metrics?.every((m) => m.Dimensions?.length === 1)).toBe(true);
    expect(new Set(listed.Metrics?.map((m) => m.MetricName))).toEqual(
      new Set([
        'Invocations',
        'InvocationsPerCopy',
        'Invocation4XXErrors',
        'Invocation5XXErrors',
        'ModelLatency',
        'ConcurrentRequestsPerCopy',
      ]),
    );
  });

  it('at 0 copies the instances go (min 0) and requests fail at once with the no-capacity error, counted', async () => {
    await setCopies(0);
    await settled(0);
    await eventually(async () => ((await instances()).desired === 0 ? true : undefined), 30_000);
    const start = new Date(Date.now() - 60_000);
    for (let i = 0; i < 2; i++) {
      const e = await rejectionOf(invoke());
      expect(e.name).toBe('ValidationError');
      expect((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(400);
      expect(e.message).toMatch(/^Inference Component has no capacity to process this request\./);
    }
    const stats = await c.cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'AWS/SageMaker',
        MetricName: 'NoCapacityInvocationFailures',
        Dimensions: [{ Name: 'InferenceComponentName', Value: IC }],
        StartTime: start,
        EndTime: new Date(Date.now() + 60_000),
        Period: 60,
        Statistics: ['Sum'],
      }),
    );
    expect((stats.Datapoints ?? []).reduce((a, p) => a + (p.Sum ?? 0), 0)).toBe(2);
  });

  it('a step scaling policy on NoCapacityInvocationFailures >= 1 wakes the component from zero', async () => {
    const resource = { ServiceNamespace: 'sagemaker' as const, ResourceId: `inference-component/${IC}` };
    const dim = 'sagemaker:inference-component:DesiredCopyCount' as const;
    await c.autoscaling.send(
      new RegisterScalableTargetCommand({
        ...resource,
        ScalableDimension: dim,
        MinCapacity: 0,
        MaxCapacity: 2,
      }),
    );
    // Target tracking on the per-copy concurrency: its alarms watch the component's own metric.
    await c.autoscaling.send(
      new PutScalingPolicyCommand({
        ...resource,
        ScalableDimension: dim,
        PolicyName: 'per-copy',
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 4,
          PredefinedMetricSpecification: {
            PredefinedMetricType: 'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution',
          },
        },
      }),
    );
    const managed = await c.cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNamePrefix: `TargetTracking-inference-component/${IC}` }),
    );
    expect(managed.MetricAlarms?.[0]).toMatchObject({
      MetricName: 'ConcurrentRequestsPerCopy',
      Dimensions: [{ Name: 'InferenceComponentName', Value: IC }],
    });
    const step = await c.autoscaling.send(
      new PutScalingPolicyCommand({
        ...resource,
        ScalableDimension: dim,
        PolicyName: 'wake-from-zero',
        PolicyType: 'StepScaling',
        StepScalingPolicyConfiguration: {
          AdjustmentType: 'ChangeInCapacity',
          MetricAggregationType: 'Maximum',
          Cooldown: 60,
          StepAdjustments: [{ MetricIntervalLowerBound: 0, ScalingAdjustment: 1 }],
        },
      }),
    );
    await c.cloudwatch.send(
      new PutMetricAlarmCommand({
        AlarmName: 'ic-wake',
        Namespace: 'AWS/SageMaker',
        MetricName: 'NoCapacityInvocationFailures',
        Dimensions: [{ Name: 'InferenceComponentName', Value: IC }],
        Statistic: 'Maximum',
        Period: 1,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [step.PolicyARN as string],
      }),
    );
    expect((await rejectionOf(invoke())).name).toBe('ValidationError');
    await settled(1);
    expect(await instances()).toEqual({ desired: 1, current: 1, status: 'InService' });
    // The activity is Successful once the copy serves (checked at the next evaluation).
    const activity = await eventually(async () => {
      const a = await c.autoscaling.send(
        new DescribeScalingActivitiesCommand({ ...resource, ScalableDimension: dim }),
      );
      const newest = a.ScalingActivities?.[0];
      return newest?.StatusCode === 'Successful' ? newest : undefined;
    }, 30_000);
    expect(activity.Description).toBe('Setting desired copy count to 1.');
    // The tests after this one set copy counts by hand, outside the policies' range.
    await c.autoscaling.send(new DeregisterScalableTargetCommand({ ...resource, ScalableDimension: dim }));
    expect(new TextDecoder().decode((await invoke()).Body)).toBe('chunk-0;');
  });

  it('a copy without room at MaxInstanceCount waits (Updating) instead of overfilling an instance', async () => {
    await setCopies(5);
    // Two instances (the maximum) hold two copies each; the fifth has nowhere to go.
    await eventually(
      async () => ((await describeIc()).RuntimeConfig?.CurrentCopyCount === 4 ? true : undefined),
      15_000,
    );
    expect(await instances()).toEqual({ desired: 2, current: 2, status: 'InService' });
    const d = await describeIc();
    expect(d.InferenceComponentStatus).toBe('Updating');
    expect(d.RuntimeConfig).toEqual({ DesiredCopyCount: 5, CurrentCopyCount: 4 });
    await setCopies(2);
    await settled(2);
    await eventually(async () => ((await instances()).desired === 1 ? true : undefined), 30_000);
  });

  it('UpdateInferenceComponent with a new model replaces the copies and keeps serving', async () => {
    await c.sagemaker.send(
      new CreateModelCommand({
        ModelName: 'ic-model-2',
        PrimaryContainer: { Image: h.imageUri, Environment: { MAX_QUEUE_DEPTH: '4' } },
      }),
    );
    await c.sagemaker.send(
      new UpdateInferenceComponentCommand({
        InferenceComponentName: IC,
        Specification: {
          ModelName: 'ic-model-2',
          ComputeResourceRequirements: { NumberOfCpuCoresRequired: 2, MinMemoryRequiredInMb: 4096 },
        },
      }),
    );
    expect((await describeIc()).InferenceComponentStatus).toBe('Updating');
    const d = await settled(2);
    expect(d.Specification?.ModelName).toBe('ic-model-2');
    expect(d.Specification?.Container?.Environment).toEqual({ MAX_QUEUE_DEPTH: '4' });
    expect(d.FailureReason).toBeUndefined();
    expect(new TextDecoder().decode((await invoke()).Body)).toBe('chunk-0;');
  });

  it('refuses what SageMaker refuses: components on a model endpoint, copies larger than an instance, instance counts on a component endpoint', async () => {
    const spec = (req: { NumberOfAcceleratorDevicesRequired?: number; MinMemoryRequiredInMb: number }) => ({
      ModelName: 'ic-model',
      ComputeResourceRequirements: req,
    });
    const onModelEndpoint = await rejectionOf(
      c.sagemaker.send(
        new CreateInferenceComponentCommand({
          InferenceComponentName: 'ic-x',
          EndpointName: h.endpointName,
          Specification: spec({ MinMemoryRequiredInMb: 1024 }),
          RuntimeConfig: { CopyCount: 1 },
        }),
      ),
    );
    expect(onModelEndpoint.name).toBe('ValidationException');
    const tooBig = await rejectionOf(
      c.sagemaker.send(
        new CreateInferenceComponentCommand({
          InferenceComponentName: 'ic-x',
          EndpointName: ENDPOINT,
          Specification: spec({ NumberOfAcceleratorDevicesRequired: 2, MinMemoryRequiredInMb: 1024 }),
          RuntimeConfig: { CopyCount: 1 },
        }),
      ),
    );
    expect(tooBig.name).toBe('ValidationException');
    expect(tooBig.message).toMatch(/exceed what one ml\.g5\.xlarge instance offers/);
    const capacity = await rejectionOf(
      c.sagemaker.send(
        new UpdateEndpointWeightsAndCapacitiesCommand({
          EndpointName: ENDPOINT,
          DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 2 }],
        }),
      ),
    );
    expect(capacity.name).toBe('ValidationException');
    const named = await rejectionOf(
      c.runtime.send(
        new InvokeEndpointCommand({ EndpointName: h.endpointName, InferenceComponentName: IC, Body: body() }),
      ),
    );
    expect(named.name).toBe('ValidationError');
  });

  it('DeleteInferenceComponent stops its copies and its instances go (min 0)', async () => {
    await c.sagemaker.send(new DeleteInferenceComponentCommand({ InferenceComponentName: IC }));
    expect((await describeIc()).InferenceComponentStatus).toBe('Deleting');
    const gone = await eventually(async () => {
      try {
        await describeIc();
        return undefined;
      } catch (e) {
        return e as Error;
      }
    }, 30_000);
    expect(gone.name).toBe('ValidationException');
    await eventually(async () => ((await instances()).desired === 0 ? true : undefined), 30_000);
  });
});
