/**
 * `scalegate local up`: starts the local SageMaker with one endpoint, prints one JSON line
 * `{"aws_endpoint_url","region","endpoint_name","variant"}` on stdout once it is InService
 * (progress goes to stderr), and runs until SIGINT/SIGTERM; then it stops every container it
 * started and returns exit code 0.
 */
import type { EmulatedDevice } from './contracts.js';
import { describeEmulatedDevice } from './device.js';
import { killAllContainers } from './fleet.js';
import { type LocalSageMakerHandle, startLocalSageMaker } from './index.js';

export interface LocalUpOptions {
  port?: number;
  endpoint?: string;
  instances?: number;
  provisionDelayS?: number;
  maxQueueDepth?: number;
  workers?: number;
  quota?: number;
  /** More model environment (e.g. REQUEST_CONTRACT=input-voice), as a container definition carries it. */
  environment?: Record<string, string>;
  /** What each instance emulates (default: host CPU synthesis). */
  device?: EmulatedDevice;
  /** Echo every container output line to stderr. */
  verbose?: boolean;
  /** Image URI the endpoint reports. @default the emulator's (`startLocalSageMaker`) */
  imageUri?: string;
  /** The Price List API's USD per instance-hour by instance type. @default none */
  prices?: Record<string, number>;
}

export interface LocalUpIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Resolves when the emulator should stop. Default: the first SIGINT or SIGTERM. */
  stopped?: Promise<unknown>;
  /** Called once the JSON line is printed (tests use the handle). */
  onReady?: (handle: LocalSageMakerHandle) => void;
}

/**
 * The first SIGINT/SIGTERM asks for a graceful stop. A second one (an impatient Ctrl-C) kills the
 * containers at once and exits 1: a default signal death would leave them running.
 */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first = true;
    const on = (signal: NodeJS.Signals) => {
      if (first) {
        first = false;
        resolve(signal);
        return;
      }
      killAllContainers();
      process.exit(1);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

export async function runLocalUp(opts: LocalUpOptions, io: LocalUpIo): Promise<number> {
  // Listen before starting: a signal during start-up must still stop what was started.
  const stopped = io.stopped ?? untilSignal();
  let stopRequested = false;
  void stopped.then(() => {
    stopRequested = true;
  });
  const started = Date.now();
  io.stderr(
    `local up: starting endpoint ${opts.endpoint ?? 'speech-kokoro-82m'} with ${opts.instances ?? 1} instance(s)`,
  );
  if (opts.device) io.stderr(`local up: ${describeEmulatedDevice(opts.device)}`);
  let handle: LocalSageMakerHandle;
  try {
    handle = await startLocalSageMaker({
      ...(opts.port !== undefined ? { port: opts.port } : {}),
      ...(opts.endpoint !== undefined ? { endpointName: opts.endpoint } : {}),
      ...(opts.instances !== undefined ? { instances: opts.instances } : {}),
      ...(opts.provisionDelayS !== undefined ? { provisionDelayS: opts.provisionDelayS } : {}),
      ...(opts.maxQueueDepth !== undefined ? { maxQueueDepth: opts.maxQueueDepth } : {}),
      ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
      ...(opts.quota !== undefined ? { quota: opts.quota } : {}),
      ...(opts.environment !== undefined ? { environment: opts.environment } : {}),
      ...(opts.imageUri !== undefined ? { imageUri: opts.imageUri } : {}),
      ...(opts.prices !== undefined ? { prices: opts.prices } : {}),
      ...(opts.device ? { device: opts.device } : {}),
      registerScalableTarget: false,
      log: (line) => io.stderr(`local up: ${line}`),
      ...(opts.verbose
        ? { onContainerLine: (id: string, line: string) => io.stderr(`[${id}] ${line}`) }
        : {}),
    });
  } catch (e) {
    io.stderr(`local up: failed to start: ${(e as Error).message}`);
    return 1;
  }
  if (stopRequested) {
    await handle.close();
    return 0;
  }
  io.stderr(
    `local up: ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${handle.url}; ` +
      `instances ${handle
        .instances()
        .map((i) => `${i.id} (pid ${i.pid}, port ${i.port})`)
        .join(', ')}`,
  );
  io.stdout(
    JSON.stringify({
      aws_endpoint_url: handle.url,
      region: handle.region,
      endpoint_name: handle.endpointName,
      variant: handle.variantName,
    }),
  );
  io.onReady?.(handle);
  const signal = await stopped;
  io.stderr(`local up: ${typeof signal === 'string' ? signal : 'stop'}: stopping every container`);
  await handle.close();
  io.stderr('local up: stopped');
  return 0;
}
