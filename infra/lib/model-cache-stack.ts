/**
 * ModelCacheStack: a CodeBuild project that copies the model's weights from Hugging Face into the
 * weights bucket, run once per declared revision during the deploy (a custom resource starts the
 * build and waits for it), so cold starts and image builds never pull weights from the internet.
 * A model without a declared weights source (infra/lib/weights.ts) gets only a no-op placeholder.
 */
import {
  Annotations,
  CfnOutput,
  CfnWaitConditionHandle,
  CustomResource,
  Duration,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import * as codebuild from 'aws-cdk-lib/aws-codebuild';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { type WeightsSource, weightsPrefix } from './weights.js';

export interface ModelCacheStackProps extends StackProps {
  readonly modelName: string;
  readonly bucket: s3.IBucket;
  readonly weights: WeightsSource | null;
}

const START_BUILD = `
const { CodeBuildClient, StartBuildCommand } = require('@aws-sdk/client-codebuild');
const codebuild = new CodeBuildClient({});
exports.handler = async (event) => {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  const started = await codebuild.send(new StartBuildCommand({ projectName: process.env.PROJECT_NAME }));
  const revision = event.ResourceProperties.Revision;
  return { PhysicalResourceId: process.env.PROJECT_NAME + '@' + revision, Data: { BuildId: started.build.id } };
};
`;

const BUILD_DONE = `
const { CodeBuildClient, BatchGetBuildsCommand } = require('@aws-sdk/client-codebuild');
const codebuild = new CodeBuildClient({});
exports.handler = async (event) => {
  if (event.RequestType === 'Delete') return { IsComplete: true };
  const id = event.Data.BuildId;
  const found = await codebuild.send(new BatchGetBuildsCommand({ ids: [id] }));
  const status = found.builds && found.builds[0] ? found.builds[0].buildStatus : 'NOT_FOUND';
  if (status === 'SUCCEEDED') return { IsComplete: true };
  if (status === 'IN_PROGRESS') return { IsComplete: false };
  throw new Error('weights sync build ' + id + ' ended ' + status + ': see the CodeBuild log of ' + process.env.PROJECT_NAME);
};
`;

export class ModelCacheStack extends Stack {
  readonly project: codebuild.Project | null = null;

  constructor(scope: Construct, id: string, props: ModelCacheStackProps) {
    super(scope, id, props);
    const { modelName, bucket, weights } = props;
    if (weights === null) {
      Annotations.of(this).addInfo(
        `${modelName}: no weights source declared (infra/lib/weights.ts): the image carries its weights, nothing to sync.`,
      );
      // CloudFormation refuses a template without resources; this one is free and does nothing,
      // and keeps every model's deployment the same three stacks.
      new CfnWaitConditionHandle(this, 'NothingToSync');
      return;
    }
    const destination = `s3://${bucket.bucketName}/${weightsPrefix(modelName)}${weights.revision}/`;

    const project = new codebuild.Project(this, 'SyncWeights', {
      description: `Copies ${weights.repo}@${weights.revision} into the weights bucket once (scalegate ${modelName})`,
      environment: {
        buildImage: codebuild.LinuxBuildImage.STANDARD_7_0,
        computeType: codebuild.ComputeType.MEDIUM,
      },
      timeout: Duration.hours(2),
      environmentVariables: {
        HF_REPO: { value: weights.repo },
        HF_REVISION: { value: weights.revision },
        DESTINATION: { value: destination },
      },
      buildSpec: codebuild.BuildSpec.fromObject({
        version: '0.2',
        phases: {
          install: {
            'runtime-versions': { python: '3.12' },
            commands: ['pip install --quiet "huggingface_hub[hf_transfer]"'],
          },
          build: {
            commands: [
              // Once: a marker object records a completed sync of this revision.
              'if aws s3 ls "$DESTINATION.scalegate-synced" > /dev/null 2>&1; then echo "weights already in $DESTINATION"; else ' +
                'HF_HUB_ENABLE_HF_TRANSFER=1 huggingface-cli download "$HF_REPO" --revision "$HF_REVISION" --local-dir /tmp/weights ' +
                '&& aws s3 sync /tmp/weights "$DESTINATION" --exclude ".cache/*" --only-show-errors ' +
                '&& date -u +%Y-%m-%dT%H:%M:%SZ | aws s3 cp - "$DESTINATION.scalegate-synced"; fi',
            ],
          },
        },
      }),
    });
    // Granted on the project's role, not through the bucket policy: the bucket lives in the
    // foundation stack, which must not depend on this one.
    project.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [bucket.arnForObjects(`${weightsPrefix(modelName)}*`)],
      }),
    );
    project.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${weightsPrefix(modelName)}*`] } },
      }),
    );
    this.project = project;

    const handler = (name: string, code: string, action: string) => {
      const fn = new lambda.Function(this, name, {
        runtime: lambda.Runtime.NODEJS_22_X,
        handler: 'index.handler',
        code: lambda.Code.fromInline(code),
        timeout: Duration.minutes(1),
        environment: { PROJECT_NAME: project.projectName },
      });
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: [action], resources: [project.projectArn] }));
      return fn;
    };
    const provider = new cr.Provider(this, 'SyncProvider', {
      onEventHandler: handler('StartSync', START_BUILD, 'codebuild:StartBuild'),
      isCompleteHandler: handler('SyncDone', BUILD_DONE, 'codebuild:BatchGetBuilds'),
      queryInterval: Duration.seconds(30),
      totalTimeout: Duration.hours(2),
    });
    // Re-runs only when the source or revision changes: that is "once".
    new CustomResource(this, 'SyncOnce', {
      serviceToken: provider.serviceToken,
      properties: { Repo: weights.repo, Revision: weights.revision, Destination: destination },
    });
    new CfnOutput(this, 'WeightsUri', { value: destination });
    new CfnOutput(this, 'SyncProjectName', { value: project.projectName });
  }
}
