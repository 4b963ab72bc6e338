/** The options of `scalegate compare` (command line only). */
import { subject, usage } from '../model/errors.js';
import { MODEL_OPTIONS, outFile } from './common.js';
import { type OptionTable, parsed, text } from './spec.js';

export const COMPARE_OPTIONS = {
  ...MODEL_OPTIONS,
  planFiles: parsed(
    'plan',
    '<files>',
    (raw) => {
      const files = raw
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '');
      if (files.length === 0) throw usage`${subject('plan')} needs plan files or directories, got "${raw}".`;
      return files;
    },
    "the candidates' plans (one per instance type, from `scalegate plan` on each calibration endpoint): comma-separated files, or directories (every plan-*.json in them and their subdirectories)",
    { cli: { required: true } },
  ),
  region: text('region', '<region>', 'AWS region of the Service Quotas check', {
    defaultText: "AWS_REGION, then the model config's",
  }),
  outFile: outFile('compare artifact', 'compare-<model>.json'),
  svgFile: text('svg', '<file>', 'where to write the frontier chart (cost per 1M characters vs SLO margin)', {
    defaultText: 'beside the artifact, .svg for .json',
  }),
  markdownFile: text(
    'markdown',
    '<file>',
    'also write the table and the choice as markdown (a pull request comment, a job summary)',
  ),
  planOut: text('plan-out', '<file>', 'where the chosen plan is copied (byte for byte)', {
    defaultText: 'artifacts/plan-<model>.json, the committed plan',
  }),
} as const satisfies OptionTable;
