/**
 * CDK entry point (`cd infra && npx cdk synth -c scalegate:model=kokoro-82m`). A refused gate or
 * a config mistake prints its message, without a stack trace, and fails the synth.
 */
import { App } from 'aws-cdk-lib';
import { isUsageError } from '../../src/model/index.js';
import { buildScalegateApp } from '../lib/app.js';
import { GateRefusedError } from '../lib/synth-gate.js';

const app = new App();
try {
  buildScalegateApp(app);
  app.synth();
} catch (e) {
  if (e instanceof GateRefusedError || isUsageError(e)) {
    process.stderr.write(`\n${e.message}\n\n`);
    process.exit(1);
  }
  throw e;
}
