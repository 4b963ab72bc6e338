import type * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct, type IDependable } from 'constructs';
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
export declare class ScalegateScaling extends Construct {
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
    private readonly endpointDependencies;
    private endpointGiven;
    constructor(scope: Construct, id: string, props: ScalegateScalingProps);
    /** Registers the scalable target only after `endpoint` (the CfnEndpoint) is created. */
    dependOn(endpoint: IDependable): void;
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
export declare class ScalegateInferenceComponent extends Construct {
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
    constructor(scope: Construct, id: string, props: ScalegateInferenceComponentProps);
}
/** Whether an error is a refusal to report without a stack trace (the gate's, or a config mistake). */
export declare function isScalegateRefusal(e: unknown): e is Error;
