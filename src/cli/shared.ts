/**
 * What every CLI command shares: option parsing helpers, the model context from
 * scalegate.config.json, and presenting a CommandResult. Commands themselves live in
 * src/commands and never print or exit.
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CommandResult } from '../commands/result.js';
import {
  CONFIG_FILE,
  type ModelConfig,
  modelFromConfig,
  parseConfig,
  type ScalegateConfig,
  UsageError,
} from '../model/index.js';

export const parseNumber =
  (flag: string, check: (n: number) => boolean = Number.isFinite, what = 'a number') =>
  (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || !check(n)) {
      throw new InvalidArgumentError(`${flag} needs ${what}, got "${value}".`);
    }
    return n;
  };

export const positiveNumber = (flag: string) => parseNumber(flag, (n) => n > 0, 'a positive number');
export const nonNegativeNumber = (flag: string) => parseNumber(flag, (n) => n >= 0, 'a number >= 0');
export const positiveInteger = (flag: string) =>
  parseNumber(flag, (n) => Number.isInteger(n) && n > 0, 'a positive integer');

export interface ModelOptions {
  model?: string;
  config?: string;
  endpoint?: string;
  region?: string;
}

/** `--model`, `--config`, `--endpoint`, `--region`: the options every AWS-touching command shares. */
export function addModelOptions(command: Command, { endpoint = true } = {}): Command {
  command
    .option('--model <name>', `model name from ${CONFIG_FILE}`)
    .option('--config <file>', 'scalegate config file', CONFIG_FILE);
  if (endpoint) {
    command
      .option(
        '--endpoint <name>',
        "act on another endpoint of the model (e.g. its '<endpoint>-calibration' copy)",
      )
      .option('--region <region>', 'AWS region (default: the model config, then AWS_REGION)');
  }
  return command;
}

export interface ModelContext {
  config: ScalegateConfig;
  configFile: string;
  modelName: string;
  model: ModelConfig;
  endpoint: string;
  variant: string;
  region: string;
}

export function readConfigFile(file: string): ScalegateConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new UsageError(
      missing
        ? `${file}: no such config file. Create ${CONFIG_FILE} (see README) or pass --config FILE.`
        : `${file}: cannot read (${(e as Error).message}).`,
    );
  }
  return parseConfig(text, file);
}

export function loadModelContext(options: ModelOptions): ModelContext {
  const configFile = options.config ?? CONFIG_FILE;
  const config = readConfigFile(configFile);
  const [modelName, model] = modelFromConfig(config, options.model, configFile);
  return {
    config,
    configFile,
    modelName,
    model,
    endpoint: options.endpoint ?? model.endpoint,
    variant: model.variant,
    // Flag first; then the standard SDK environment (so AWS_REGION=local reaches the emulator); then config.
    region: options.region ?? process.env.AWS_REGION ?? model.region,
  };
}

export interface PresentOptions {
  json?: boolean;
}

/** Prints a command's result and sets the exit code; the only place results meet stdout. */
export function present(result: CommandResult, options: PresentOptions = {}): void {
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result.artifact, null, 2)}\n`);
  } else {
    process.stdout.write(result.report.endsWith('\n') ? result.report : `${result.report}\n`);
  }
  process.exitCode = result.exitCode;
}

export const jsonOption = (): Option =>
  new Option('--json', 'print the artifact as JSON instead of the report');
