/**
 * FoundationStack: what a model's endpoints stand on. The SageMaker execution role (least
 * privilege: its own log groups, its own weights prefix; image pulls are granted by the endpoint
 * stack for exactly the image it deploys) and the weights bucket (retained on destroy). No fixed
 * physical names, so the same model can be deployed in two regions of one account.
 */
import { Aws, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { ModelConfig } from '../../src/model/index.js';
import { weightsPrefix } from './weights.js';

export interface FoundationStackProps extends StackProps {
  readonly modelName: string;
  readonly model: ModelConfig;
}

export class FoundationStack extends Stack {
  readonly bucket: s3.Bucket;
  readonly executionRole: iam.Role;

  constructor(scope: Construct, id: string, props: FoundationStackProps) {
    super(scope, id, props);
    const { modelName, model } = props;

    this.bucket = new s3.Bucket(this, 'Weights', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.executionRole = new iam.Role(this, 'ExecutionRole', {
      assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com'),
      description: `SageMaker execution role of ${modelName} (${model.endpoint}; the calibration copy has its own)`,
    });

    // Container logs: only this model's endpoint log group (the calibration copy has its own role).
    const logGroups = [model.endpoint].map(
      (endpoint) =>
        `arn:${Aws.PARTITION}:logs:${this.region}:${this.account}:log-group:/aws/sagemaker/Endpoints/${endpoint}`,
    );
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({ actions: ['logs:CreateLogGroup'], resources: logGroups }),
    );
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
        resources: logGroups.map((arn) => `${arn}:*`),
      }),
    );
    // Metrics the platform publishes on the container's behalf; PutMetricData has no resource ARN.
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({
        actions: ['cloudwatch:PutMetricData'],
        resources: ['*'],
        conditions: { StringLike: { 'cloudwatch:namespace': '/aws/sagemaker/*' } },
      }),
    );
    // ECR login has no resource ARN; which repositories may be pulled is granted per image.
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({ actions: ['ecr:GetAuthorizationToken'], resources: ['*'] }),
    );
    // Read-only on this model's weights prefix.
    const prefix = weightsPrefix(modelName);
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${prefix}*`)],
      }),
    );
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } },
      }),
    );
  }
}
