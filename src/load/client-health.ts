/**
 * Samples what the load-generating process did over one rung: its event loop's lateness
 * (perf_hooks.monitorEventLoopDelay, beyond the sampler's resolution) and its CPU time
 * (process.cpuUsage) over the rung's wall time. src/stats/client-health.ts judges the sample.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { ClientHealthSample } from '../stats/client-health.js';

const RESOLUTION_MS = 10;

export interface ClientHealthSampler {
  /** The sample since start; `extra` adds what only the caller knows (open loop: send lag, drops). */
  stop(extra?: Partial<Pick<ClientHealthSample, 'sendLagP99Ms' | 'droppedArrivals'>>): ClientHealthSample;
}

export function startClientHealth(): ClientHealthSampler {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let stopped: ClientHealthSample | null = null;
  return {
    stop(extra = {}) {
      if (stopped) return { ...stopped, ...extra };
      histogram.disable();
      const used = process.cpuUsage(cpu);
      const wallMs = Math.max(performance.now() - started, 1e-6);
      const p99 = histogram.count > 0 ? Math.max(0, histogram.percentile(99) / 1e6 - RESOLUTION_MS) : null;
      stopped = {
        wallS: wallMs / 1000,
        eventLoopDelayP99Ms: p99,
        cpuShare: (used.user + used.system) / 1000 / wallMs,
        sendLagP99Ms: null,
        droppedArrivals: null,
      };
      return { ...stopped, ...extra };
    },
  };
}
