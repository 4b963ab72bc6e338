import { z } from 'zod';
import { safeString } from '../safe.js';

/**
 * What the load-generating client did during a rung (one process; merged shards: the worst of
 * them): event-loop lateness p99, CPU share of one core, send lag p99 and dropped arrivals (open
 * loop), and whether that let it keep its schedule (src/stats/client-health.ts).
 */
export const clientHealthSchema = z.object({
  wall_s: z.number().nonnegative(),
  event_loop_delay_p99_ms: z.number().nonnegative().nullable(),
  cpu_share: z.number().nonnegative().nullable(),
  send_lag_p99_ms: z.number().nonnegative().nullable(),
  dropped_arrivals: z.number().int().nonnegative().nullable(),
  healthy: z.boolean(),
  /** Why not (empty when healthy): a rung that passed with an unhealthy client is undecided. */
  reasons: z.array(safeString),
});
export type ClientHealthRecord = z.infer<typeof clientHealthSchema>;
