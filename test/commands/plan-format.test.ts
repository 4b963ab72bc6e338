/**
 * `scalegate plan --format json|tfvars`: the deployable values other infrastructure-as-code tools
 * apply (docs/terraform.md, examples/terraform). They must be exactly the plan's numbers (a
 * Terraform apply of a rounded or stale value would deploy a policy nobody measured), the tfvars
 * must be HCL Terraform reads (strings quoted, numbers bare), and a mistaken flag is a usage error.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifact } from '../../src/model/index.js';
import { hclString } from '../../src/report/deployable-values.js';
import { anchorQmaxFile, anchorTtotalFile, configFile, repoRoot } from '../helpers/anchor.js';
import { runCli, runCliIn } from '../helpers/cli.js';

const committedPlanFile = join(repoRoot, 'artifacts', 'plan-kokoro-82m.json');
const committed = readArtifact('plan', committedPlanFile);
const committedSha256 = createHash('sha256').update(readFileSync(committedPlanFile)).digest('hex');
const from = ['plan', '--config', configFile, '--model', 'kokoro-82m', '--from', committedPlanFile];

/** One HCL attribute per line: a number, null, or a string literal whose `${`/`%{` are escaped. */
const TFVARS_LINE =
  /^([a-z_][a-z0-9_]*) += (-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|null|"(?:[^"\\$%]|\\.|\$\$\{|%%\{|\$(?!\{)|%(?!\{))*")$/;

/** Parses the tfvars `plan` prints (and fails on any line Terraform would not read as above). */
function parseTfvars(text: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = TFVARS_LINE.exec(line);
    expect(m, `not an HCL attribute: ${line}`).not.toBeNull();
    const [, name, raw] = m as RegExpExecArray;
    const literal = (raw as string).replaceAll('$${', '${').replaceAll('%%{', '%{');
    values[name as string] = JSON.parse(literal);
  }
  return values;
}

/** The deployable numbers of the committed plan, under the variable names docs/terraform.md documents. */
const expectedNumbers = {
  scalegate_min_capacity: committed.deployable.min_instances,
  scalegate_max_capacity: committed.deployable.max_instances,
  scalegate_target_value: committed.deployable.scaling_target_value,
  scalegate_scale_in_threshold: committed.deployable.scale_in_threshold,
  scalegate_scale_out_cooldown_s: committed.deployable.scale_out_cooldown_s,
  scalegate_scale_in_cooldown_s: committed.deployable.scale_in_cooldown_s,
  scalegate_queue_max_depth: committed.deployable.queue_max_depth,
  // The concurrency-above-target alarm: above target for longer than T_plan + 1 minute.
  scalegate_above_target_periods: Math.ceil(committed.derived.t_plan_s / 60) + 1,
  scalegate_slo_ms: committed.deployable.slo_ms,
  scalegate_service_time_alarm_ms: committed.deployable.service_time_alarm_ms,
};

const expectedIdentity = {
  scalegate_model: 'kokoro-82m',
  scalegate_endpoint_name: 'speech-kokoro-82m',
  scalegate_variant_name: 'AllTraffic',
  scalegate_resource_id: 'endpoint/speech-kokoro-82m/variant/AllTraffic',
  scalegate_scaling_metric: 'ConcurrentRequestsPerModel',
  scalegate_predefined_metric_type: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
  scalegate_scale_in_metric_name: 'ConcurrentRequestsPerModel',
  scalegate_scale_in_statistic: 'Maximum',
  scalegate_plan_run_id: committed.run_id,
  scalegate_plan_sha256: committedSha256,
  scalegate_plan_verdict: committed.verdict,
  scalegate_image_digest: committed.fingerprint.image_digest,
  scalegate_instance_type: 'ml.g5.xlarge',
  scalegate_region: 'us-east-1',
};

describe('scalegate plan --format (deployable values for Terraform and other IaC)', () => {
  it('tfvars of the committed anchor plan: exactly its deployable numbers, its identity, valid HCL', async () => {
    const r = await runCli([...from, '--format', 'tfvars']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const values = parseTfvars(r.stdout);
    expect(values).toMatchObject({ ...expectedNumbers, ...expectedIdentity });
    // The sanity of the anchor itself: the numbers the README reports for this plan.
    expect(values).toMatchObject({
      scalegate_target_value: 6,
      scalegate_scale_in_threshold: 7,
      scalegate_max_capacity: 407,
      scalegate_scale_in_cooldown_s: 960,
    });
  });

  it('json of the committed anchor plan carries the same values as the tfvars (one source)', async () => {
    const json = await runCli([...from, '--format', 'json']);
    const tfvars = await runCli([...from, '--format', 'tfvars']);
    expect(json.exitCode).toBe(0);
    const values = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(values).toMatchObject({ ...expectedNumbers, ...expectedIdentity });
    expect(values).toEqual(parseTfvars(tfvars.stdout));
  });

  it('a plan derived with --format tfvars prints the numbers of the plan it wrote, and the hash of that file', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'scalegate-plan-format-')), 'plan.json');
    const r = await runCli([
      'plan',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--qmax',
      anchorQmaxFile,
      '--ttotal',
      anchorTtotalFile,
      '--out',
      out,
      '--format',
      'tfvars',
    ]);
    expect(r.exitCode).toBe(0);
    const written = readArtifact('plan', out);
    const values = parseTfvars(r.stdout);
    // Re-derived from the committed measurements: the committed plan's deployable numbers.
    expect(values).toMatchObject(expectedNumbers);
    expect(values.scalegate_plan_run_id).toBe(written.run_id);
    expect(values.scalegate_plan_sha256).toBe(createHash('sha256').update(readFileSync(out)).digest('hex'));
  });

  it('refuses a --format it does not know, exit 2, naming the flag and the choices', async () => {
    const r = await runCli([...from, '--format', 'yaml']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--format');
    expect(r.stderr).toContain('text, json, tfvars');
    expect(r.stdout).toBe('');
  });

  it('refuses --from together with an input that would derive a plan, writing nothing', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'scalegate-plan-format-')), 'plan.json');
    const r = await runCli([...from, '--format', 'tfvars', '--qmax', anchorQmaxFile, '--out', out]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--from');
    expect(r.stderr).toContain('--qmax');
    expect(existsSync(out)).toBe(false);
  });

  it('refuses --json with --format tfvars (two different outputs asked for)', async () => {
    const r = await runCli([...from, '--format', 'tfvars', '--json']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--format tfvars');
  });

  it('refuses when no qmax is named (--qmax) or found and no --from is given, naming --qmax', async () => {
    // An empty working directory: nothing for discovery to find, nothing written into artifacts/.
    const r = await runCliIn(mkdtempSync(join(tmpdir(), 'scalegate-noqmax-')), [
      'plan',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--assume-t-total',
      '60',
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--qmax');
    expect(r.stderr).toContain('no qmax artifact');
  });

  it('prints exactly the variables examples/terraform declares (an undeclared tfvars name fails terraform plan)', async () => {
    const r = await runCli([...from, '--format', 'tfvars']);
    const printed = Object.keys(parseTfvars(r.stdout)).sort();
    const declared = [
      ...readFileSync(join(repoRoot, 'examples', 'terraform', 'variables.tf'), 'utf8').matchAll(
        /^variable "([a-z0-9_]+)"/gm,
      ),
    ].map((m) => m[1]);
    expect(declared.filter((v) => v !== 'deployed_image_digest').sort()).toEqual(printed);
    // And main.tf uses every one of them.
    const main = readFileSync(join(repoRoot, 'examples', 'terraform', 'main.tf'), 'utf8');
    const unused = [...declared].filter((v) => !main.includes(`var.${v}`));
    expect(
      unused.filter(
        (v) =>
          !['scalegate_scaling_metric', 'scalegate_instance_type', 'scalegate_slo_ms'].includes(v as string),
      ),
    ).toEqual([]);
  });

  it('escapes what HCL would interpolate in a string ($${ and %%{), so a value stands for itself', () => {
    const interpolating = ['a', '$', '{b}', '%{c}'].join(''); // what HCL would read as templates
    expect(hclString(`${interpolating}"d\\`)).toBe('"a$$' + '{b}%%{c}\\"d\\\\"');
    expect(parseTfvars(`x = ${hclString(interpolating)}`)).toEqual({ x: interpolating });
  });
});
