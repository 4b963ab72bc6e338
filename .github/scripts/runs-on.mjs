#!/usr/bin/env node
// The runner a measuring job runs on, as JSON for `runs-on: ${{ fromJSON(...) }}`, on the step
// output `runs-on` (and stdout). Read from RUNS_ON (the workflow's `runs-on` input), else
// SCALEGATE_RUNS_ON (a repository variable, which also reaches pull-request runs), else
// `ubuntu-latest`:
//
//   ubuntu-latest                    one label, as is
//   ["self-hosted","us-east-1"]      a JSON array of labels (every one must match)
//   {"group":"calibration"}          a JSON runner group (optionally with "labels")
//   codebuild-<project>              an AWS CodeBuild-hosted runner: the label gets the run id and
//                                    attempt appended (-<run_id>-<run_attempt>), as CodeBuild's
//                                    webhook requires
//
// Why a runner other than GitHub's: every TTFAB is measured from the runner, so a runner outside
// the endpoint's region puts the internet leg into every figure (docs/vantage.md).
//
// No dependencies: runs right after checkout, before `npm ci`.
import { appendFileSync } from 'node:fs';

const fail = (message) => {
  process.stderr.write(`::error title=scalegate::${message}\n`);
  process.exit(2);
};

const raw = (process.env.RUNS_ON || process.env.SCALEGATE_RUNS_ON || 'ubuntu-latest').trim();
let value;
if (raw.startsWith('[') || raw.startsWith('{')) {
  try {
    value = JSON.parse(raw);
  } catch (e) {
    fail(
      `runs-on ${raw}: not JSON (${e.message}); give one label, a JSON array of labels or {"group": ..., "labels": [...]}`,
    );
  }
  const labels = Array.isArray(value) ? value : value.labels;
  const okLabels =
    labels === undefined ||
    (Array.isArray(labels) &&
      labels.length > 0 &&
      labels.every((l) => typeof l === 'string' && l.trim() !== ''));
  const okGroup = Array.isArray(value) || value.group === undefined || typeof value.group === 'string';
  if (
    !okLabels ||
    !okGroup ||
    (!Array.isArray(value) && value.group === undefined && value.labels === undefined)
  ) {
    fail(`runs-on ${raw}: a JSON array of non-empty labels, or {"group": "<name>", "labels": [...]}`);
  }
} else if (/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(raw)) {
  value = raw.startsWith('codebuild-')
    ? `${raw}-${process.env.GITHUB_RUN_ID ?? '0'}-${process.env.GITHUB_RUN_ATTEMPT ?? '1'}`
    : raw;
} else {
  fail(`runs-on ${raw}: not a runner label (letters, digits, . _ : -); give one label or JSON`);
}
const out = JSON.stringify(value);
process.stdout.write(`${out}\n`);
if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `runs-on=${out}\n`);
