/**
 * Where a load came from: the kind of machine (a GitHub-hosted runner, a self-hosted one, an AWS
 * CodeBuild build or runner, a machine outside CI), its AWS region when one is known, its host
 * name, and the RTT floor to the endpoint measured at the start of the run. A TTFAB measured from
 * a GitHub-hosted runner carries the internet leg to the endpoint's region; the vantage says how
 * much of first audio that leg may be. Detection reads an injected environment (pure).
 */
import { z } from 'zod';
import { ms } from './artifacts/common.js';
import { regionSchema, safeString } from './safe.js';

export const RUNNER_KINDS = ['github-hosted', 'self-hosted', 'codebuild', 'local', 'unknown'] as const;
export type RunnerKind = (typeof RUNNER_KINDS)[number];

/** The environment variable a runner declares its region with (a self-hosted runner in a VPC, say). */
export const VANTAGE_REGION_ENV = 'SCALEGATE_VANTAGE_REGION';

export const rttFloorSchema = z.object({
  /** `measured`: the fastest of `attempts` handshakes at the start of the run. */
  provenance: z.literal('measured'),
  /** `host:port` of the endpoint's runtime host (or the container measured directly). */
  target: safeString.max(300),
  /** Fastest TCP connect, ms (one round trip); null when no handshake completed. */
  tcp_ms: ms('rtt_floor.tcp_ms').nullable(),
  /** Fastest TCP + TLS handshake, ms; null over plain http. */
  tls_ms: ms('rtt_floor.tls_ms').nullable(),
  completed: z.number().int().nonnegative(),
  attempts: z.number().int().positive(),
  error: safeString.max(500).nullable(),
});
export type RttFloorRecord = z.infer<typeof rttFloorSchema>;

export const vantageSchema = z.object({
  runner: z.enum(RUNNER_KINDS),
  /** AWS region the load came from, when known (CodeBuild's build ARN, or declared); else null. */
  region: regionSchema.nullable(),
  /** Where `region` came from: the environment variable read, or null. */
  region_source: z.enum(['CODEBUILD_BUILD_ARN', 'AWS_REGION', VANTAGE_REGION_ENV]).nullable(),
  /** os.hostname() of the load generator. */
  host: safeString.max(255),
  /** null: not measured (a transport that does not say where it connects). */
  rtt_floor: rttFloorSchema.nullable(),
});
export type Vantage = z.infer<typeof vantageSchema>;

/** `arn:aws:codebuild:<region>:<account>:build/...` -> `<region>`. */
function regionOfArn(arn: string | undefined): string | null {
  const region = arn?.split(':')[3];
  return region && regionSchema.safeParse(region).success ? region : null;
}

const clean = (value: string | undefined): string | null => {
  const v = value?.trim();
  return v && regionSchema.safeParse(v).success ? v : null;
};

/**
 * The runner kind and region from the environment. CodeBuild first (a CodeBuild-hosted GitHub
 * Actions runner also says RUNNER_ENVIRONMENT=self-hosted): its region is the build ARN's (the
 * workflow's AWS_REGION may have been set to the endpoint's by a credentials step, so it is read
 * only when the ARN has none). GitHub's RUNNER_ENVIRONMENT tells hosted from self-hosted; a
 * GitHub-hosted runner is not in an AWS region. A self-hosted runner or a local machine has a
 * region only when it declares one (SCALEGATE_VANTAGE_REGION): the AWS_REGION of a workflow or a
 * shell names the endpoint's region, not the machine's.
 */
export function detectVantage(
  env: Record<string, string | undefined>,
  host: string,
): Omit<Vantage, 'rtt_floor'> {
  const declared = clean(env[VANTAGE_REGION_ENV]);
  const hostName = host.replace(/[^\x20-\x7e]/g, '?').slice(0, 255) || 'unknown';
  const from = (region: string | null, source: Vantage['region_source']) =>
    region === null ? { region: null, region_source: null } : { region, region_source: source };
  if (env.CODEBUILD_BUILD_ARN) {
    const arnRegion = regionOfArn(env.CODEBUILD_BUILD_ARN);
    const located = declared
      ? from(declared, VANTAGE_REGION_ENV)
      : arnRegion
        ? from(arnRegion, 'CODEBUILD_BUILD_ARN')
        : from(clean(env.AWS_REGION), 'AWS_REGION');
    return { runner: 'codebuild', ...located, host: hostName };
  }
  const declaredRegion = from(declared, VANTAGE_REGION_ENV);
  if (env.GITHUB_ACTIONS === 'true') {
    const kind = env.RUNNER_ENVIRONMENT;
    if (kind === 'github-hosted') return { runner: 'github-hosted', ...from(null, null), host: hostName };
    if (kind === 'self-hosted') return { runner: 'self-hosted', ...declaredRegion, host: hostName };
    return { runner: 'unknown', ...declaredRegion, host: hostName };
  }
  return { runner: 'local', ...declaredRegion, host: hostName };
}
