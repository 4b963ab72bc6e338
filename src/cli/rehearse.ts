import { resolve } from 'node:path';
import type { Command } from 'commander';
import { runRehearse } from '../commands/rehearse.js';
import { loadModelContext } from '../model/index.js';
import { REHEARSE_OPTIONS } from '../options/rehearse.js';
import { addOptions, optionValues } from './options.js';
import { present, stderrProgress } from './shared.js';

export function registerRehearse(program: Command): void {
  const command = program
    .command('rehearse')
    .summary('run the whole chain on the local SageMaker: drift, qmax, ttotal, plan, apply, validate')
    .description(
      "Starts the local SageMaker with the reference TTS container (one instance, a provisioning delay, a scalable target and no policy: a freshly deployed calibration endpoint), then runs drift -> qmax -> ttotal -> plan against it, applies the plan's policy through Application Auto Scaling and CloudWatch, and validates it. Writes every artifact, the PR comment preview (comment.md) and an SVG chart of p95 TTFAB vs concurrency into --out. Stops everything it started on success, failure or Ctrl-C. No AWS account needed. Exit codes: 0 the chain completed, 1 a step failed, 2 usage error.",
    );
  addOptions(command, REHEARSE_OPTIONS).action(async (flags: Record<string, unknown>) => {
    const values = optionValues(REHEARSE_OPTIONS, flags);
    const context = loadModelContext({ modelName: values.modelName, configFile: values.configFile });
    const abort = new AbortController();
    // Ctrl-C / SIGTERM end the chain; the command itself thaws and stops every process it started.
    const onSignal = (signal: NodeJS.Signals) => {
      process.stderr.write(`\nscalegate rehearse: ${signal}, stopping everything it started...\n`);
      abort.abort(new Error(signal));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const result = await runRehearse(
        {
          config: context.config,
          configFile: context.configFile,
          modelName: context.modelName,
          model: context.model,
          outDir: resolve(values.outDir as string),
          quick: values.quick,
          provisionDelayS: values.provisionDelayS,
          device: values.device,
          timeScale: values.timeScale,
          startup: values.startup,
        },
        { progress: stderrProgress(), signal: abort.signal },
      );
      present(result);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}
