import { z } from 'zod';

/** How one request ended (closed and open loop). Its own module: the histogram schemas need it too. */
export const outcomeSchema = z.enum([
  'ok',
  'saturated_503',
  'throttled_429',
  'server_5xx',
  'model_error',
  'client_timeout',
  'error',
]);
export type Outcome = z.infer<typeof outcomeSchema>;
