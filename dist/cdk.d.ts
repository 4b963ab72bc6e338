import type * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct, type IDependable } from 'constructs';
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
/** Whether an error is a refusal to report without a stack trace (the gate's, or a config mistake). */
export declare function isScalegateRefusal(e: unknown): e is Error;
