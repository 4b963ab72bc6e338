/**
 * A team's own CDK app: its endpoint, with the scaling policy scalegate measured for it. The
 * synth fails (naming each failed check and the command that fixes it) unless
 * artifacts/plan-kokoro-82m.json passes the same gate as `scalegate gate`: a plan that follows
 * from its measurements, measured on this image, instance type and region, and validated.
 *
 *   npx cdk synth      # from this directory, beside scalegate.config.json and artifacts/
 */
import { App, Stack } from 'aws-cdk-lib';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { isScalegateRefusal, ScalegateScaling } from 'scalegate/cdk';

const app = new App();
const stack = new Stack(app, 'TeamTts', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: 'us-east-1' },
});

// The image the endpoint runs, pinned by digest (the plan must have been measured on it).
const digest = '8b1b96bc4dc0b30ddd84d8fe37af7c490937333c44a9f8f7d77b918c3d7eaced';

try {
  // Reads scalegate.config.json and artifacts/plan-kokoro-82m.json from the working directory.
  const scaling = new ScalegateScaling(stack, 'Scaling', { model: 'kokoro-82m', imageDigest: digest });

  const model = new sagemaker.CfnModel(stack, 'Model', {
    executionRoleArn: `arn:aws:iam::${stack.account}:role/team-tts-sagemaker`,
    primaryContainer: {
      image: `${stack.account}.dkr.ecr.${stack.region}.amazonaws.com/speech-kokoro-82m@sha256:${digest}`,
      // MAX_QUEUE_DEPTH: the plan's queue depth (validate compares it).
      environment: { ...scaling.containerEnvironment },
    },
  });
  const config = new sagemaker.CfnEndpointConfig(stack, 'EndpointConfig', {
    productionVariants: [
      {
        variantName: 'AllTraffic',
        modelName: model.attrModelName,
        instanceType: 'ml.g5.xlarge',
        initialInstanceCount: scaling.deployable.minCapacity,
        routingConfig: { routingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
      },
    ],
  });
  const endpoint = new sagemaker.CfnEndpoint(stack, 'Endpoint', {
    endpointName: 'speech-kokoro-82m',
    endpointConfigName: config.attrEndpointConfigName,
    // Autoscaling owns the fleet size: a deploy must not reset it.
    retainAllVariantProperties: true,
  });
  // The scalable target is registered once the endpoint exists.
  scaling.dependOn(endpoint);
  app.synth();
} catch (e) {
  if (isScalegateRefusal(e)) {
    process.stderr.write(`\n${e.message}\n\n`);
    process.exit(1);
  }
  throw e;
}
