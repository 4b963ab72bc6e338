import { resolve } from 'node:path';
import type { Command } from 'commander';
import { REHEARSAL_DEVICE, REHEARSAL_TIME_SCALE, runRehearse } from '../commands/rehearse.js';
import { createProgressRenderer } from '../load/progress.js';
import { VERSION } from '../version.js';
import { type DeviceFlags, deviceOption, startupOption, timeScaleOption } from './device-options.js';
import { loadModelContext, positiveNumber, present } from './shared.js';

interface RehearseFlags extends DeviceFlags {
  model: string;
  config?: string;
  out: string;
  quick?: boolean;
  provisionDelayS?: number;
}

export const REHEARSAL_MODEL = 'reference-tts';
export const REHEARSAL_OUT = 'artifacts/local';

export function registerRehearse(program: Command): void {
  program
    .command('rehearse')
    .summary('run the whole chain on the local SageMaker: drift, qmax, ttotal, plan, apply, validate')
    .description(
      "Starts the local SageMaker with the reference TTS container (one instance, a provisioning delay, a scalable target and no policy: a freshly deployed calibration endpoint), then runs drift -> qmax -> ttotal -> plan against it, applies the plan's policy through Application Auto Scaling and CloudWatch, and validates it. Writes every artifact, the PR comment preview (comment.md) and an SVG chart of p95 TTFAB vs concurrency into --out. Stops everything it started on success, failure or Ctrl-C. No AWS account needed. Exit codes: 0 the chain completed, 1 a step failed, 2 usage error.",
    )
    .option(
      '--model <name>',
      'model from scalegate.config.json whose container is rehearsed',
      REHEARSAL_MODEL,
    )
    .option('--config <file>', 'scalegate config file', 'scalegate.config.json')
    .option('--out <dir>', 'where the artifacts and previews go', REHEARSAL_OUT)
    .option('--quick', 'shorter holds and delays (what CI runs)')
    .option(
      '--provision-delay-s <s>',
      'seconds before a new instance starts',
      positiveNumber('--provision-delay-s'),
    )
    .addOption(deviceOption(REHEARSAL_DEVICE))
    .addOption(timeScaleOption(`${REHEARSAL_TIME_SCALE} with a device`))
    .addOption(startupOption())
    .action(async (flags: RehearseFlags) => {
      const context = loadModelContext({ model: flags.model, config: flags.config });
      const abort = new AbortController();
      // Ctrl-C / SIGTERM end the chain; the command itself thaws and stops every process it started.
      const onSignal = (signal: NodeJS.Signals) => {
        process.stderr.write(`\nscalegate rehearse: ${signal}, stopping everything it started...\n`);
        abort.abort(new Error(signal));
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const result = await runRehearse({
          config: context.config,
          configFile: context.configFile,
          modelName: context.modelName,
          model: context.model,
          outDir: resolve(flags.out),
          quick: flags.quick === true,
          version: VERSION,
          provisionDelayS: flags.provisionDelayS,
          device: flags.device,
          timeScale: flags.timeScale,
          startup: flags.startup,
          progress: createProgressRenderer(process.stderr),
          signal: abort.signal,
        });
        present(result);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
