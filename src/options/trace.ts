/**
 * The options of `scalegate trace import | shape | show` (command line only: traces are files a
 * team prepares for `scalegate tune`; docs/traces.md).
 */
import { ENDPOINT_OPTIONS, MODEL_OPTIONS } from './common.js';
import { choice, type OptionTable, text } from './spec.js';

const out = (what: string) =>
  text('out', '<file>', `where to write the ${what}`, { cli: { required: true }, action: false });

export const TRACE_IMPORT_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  variant: text('variant', '<name>', 'production variant', {
    defaultText: 'the model config, else AllTraffic',
    action: false,
  }),
  from: text('from', '<iso>', 'start of the range, an ISO time with its offset (floored to the period)', {
    cli: { required: true },
    action: false,
  }),
  to: text('to', '<iso>', 'end of the range, an ISO time with its offset, at most one day after --from', {
    cli: { required: true },
    action: false,
  }),
  metric: choice(
    'metric',
    '<metric>',
    ['invocations', 'concurrency'] as const,
    'invocations: Invocations Sum per 60 s as a rate trace; concurrency: ConcurrentRequestsPerModel Maximum per 10 s (informational, kept 3 hours)',
    { default: 'invocations', action: false },
  ),
  outFile: out('trace (CSV)'),
} as const satisfies OptionTable;

export const TRACE_SHAPE_OPTIONS = {
  outFile: out('rate CSV'),
} as const satisfies OptionTable;

/** `trace show FILE` takes no option but --json. */
export const TRACE_SHOW_OPTIONS = {} as const satisfies OptionTable;
