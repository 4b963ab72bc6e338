/**
 * What the calibration role can reach, read from the synthesized templates: its own policy, and
 * the policies of every role it may assume (`sts:AssumeRole`) or hand to a service
 * (`iam:PassRole`), transitively: the `sgcal` deploy and publishing roles of the calibration
 * bootstrap template, the CloudFormation execution role the deploy role passes (with the managed
 * policy it carries), and the SageMaker execution role that one passes. Each allowed statement is
 * checked against what production owns; a finding is a statement that
 *
 * - names a production stack, a production endpoint, the default CDK bootstrap roles or the
 *   release role (any action), or a CI-access or toolkit stack (a changing action),
 * - grants a changing action on `*` (except the few actions that take no resource, under a
 *   condition), or
 * - attaches an AWS managed policy (AdministratorAccess, ReadOnlyAccess, ...: the whole account),
 *
 * unless an unconditional Deny of the same principal (its policies or its permissions boundary)
 * removes exactly that. `scripts/iam-report.ts` prints it; test/infra/iam-reach.test.ts fails on
 * any finding.
 */

/** A CloudFormation template as JSON (CDK-synthesized, or the bootstrap YAML parsed). */
export interface CfnTemplate {
  Parameters?: Record<string, { Default?: unknown }>;
  Conditions?: Record<string, unknown>;
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; Condition?: string }>;
}

export interface TemplateInput {
  /** A label for the report (e.g. the stack name). */
  name: string;
  template: CfnTemplate;
  account: string;
  region: string;
  /** Values of the template's parameters (defaults are used otherwise). */
  parameters?: Record<string, string>;
}

export interface Statement {
  sid?: string;
  effect: 'Allow' | 'Deny';
  actions: string[];
  notActions?: string[];
  resources: string[];
  notResources?: string[];
  conditional: boolean;
}

export interface Principal {
  arn: string;
  name: string;
  /** The template it was found in. */
  source: string;
  statements: Statement[];
  boundary: string | null;
  /** AWS managed policies attached to it. */
  awsManaged: string[];
}

/** One thing calibration must never reach. */
export interface ProductionTarget {
  arn: string;
  what: string;
  /** Only a changing action on it is a finding (reading a toolkit stack is fine). */
  writesOnly?: boolean;
}

export interface ReachRow {
  principal: string;
  /** How the calibration role gets there (`scalegate-calibration > cdk-sgcal-deploy-role-...`). */
  via: string[];
  sid?: string;
  effect: 'Allow' | 'Deny';
  actions: string[];
  resources: string[];
}

export interface Finding {
  principal: string;
  sid?: string;
  action: string;
  resource: string;
  reason: string;
}

export interface ReachReport {
  principals: Principal[];
  rows: ReachRow[];
  findings: Finding[];
}

type Json = unknown;
const NO_VALUE = Symbol('AWS::NoValue');

/** Resolves the intrinsics a policy uses (Ref, Fn::Sub, Fn::Join, Fn::GetAtt, Fn::If) to strings. */
class Resolver {
  private readonly physical = new Map<string, { ref: string; attrs: Record<string, string> }>();

  constructor(private readonly input: TemplateInput) {}

  private pseudo(name: string): string | undefined {
    return {
      'AWS::Partition': 'aws',
      'AWS::AccountId': this.input.account,
      'AWS::Region': this.input.region,
      'AWS::URLSuffix': 'amazonaws.com',
    }[name];
  }

  private parameter(name: string): string | undefined {
    const given = this.input.parameters?.[name];
    if (given !== undefined) return given;
    const declared = this.input.template.Parameters?.[name];
    return declared === undefined ? undefined : String(declared.Default ?? '');
  }

  private resource(id: string): { ref: string; attrs: Record<string, string> } {
    const known = this.physical.get(id);
    if (known) return known;
    const r = this.input.template.Resources[id];
    if (!r) throw new Error(`${this.input.name}: no resource ${id}`);
    const p = r.Properties ?? {};
    const { account, region } = this.input;
    const str = (v: Json) => String(this.resolve(v));
    let out: { ref: string; attrs: Record<string, string> };
    switch (r.Type) {
      case 'AWS::IAM::Role': {
        const name = p.RoleName === undefined ? id : str(p.RoleName);
        const path = p.Path === undefined ? '/' : str(p.Path);
        out = { ref: name, attrs: { Arn: `arn:aws:iam::${account}:role${path}${name}` } };
        break;
      }
      case 'AWS::IAM::ManagedPolicy': {
        const name = p.ManagedPolicyName === undefined ? id : str(p.ManagedPolicyName);
        out = { ref: `arn:aws:iam::${account}:policy/${name}`, attrs: {} };
        break;
      }
      case 'AWS::S3::Bucket': {
        const name = p.BucketName === undefined ? id.toLowerCase() : str(p.BucketName);
        out = {
          ref: name,
          attrs: { Arn: `arn:aws:s3:::${name}`, RegionalDomainName: `${name}.s3.${region}.amazonaws.com` },
        };
        break;
      }
      case 'AWS::ECR::Repository': {
        const name = p.RepositoryName === undefined ? id.toLowerCase() : str(p.RepositoryName);
        out = { ref: name, attrs: { Arn: `arn:aws:ecr:${region}:${account}:repository/${name}` } };
        break;
      }
      case 'AWS::SSM::Parameter':
        out = { ref: p.Name === undefined ? id : str(p.Name), attrs: {} };
        break;
      case 'AWS::KMS::Key':
        out = { ref: id, attrs: { Arn: `arn:aws:kms:${region}:${account}:key/${id}` } };
        break;
      default:
        out = { ref: `${this.input.name}/${id}`, attrs: {} };
    }
    this.physical.set(id, out);
    return out;
  }

  private ref(name: string): string {
    return this.pseudo(name) ?? this.parameter(name) ?? this.resource(name).ref;
  }

  private getAtt(id: string, attr: string): string {
    const value = this.resource(id).attrs[attr];
    if (value === undefined) throw new Error(`${this.input.name}: cannot resolve ${id}.${attr}`);
    return value;
  }

  condition(name: string): boolean {
    const body = this.input.template.Conditions?.[name];
    if (body === undefined) throw new Error(`${this.input.name}: no condition ${name}`);
    return this.truth(body);
  }

  private truth(body: Json): boolean {
    const o = body as Record<string, Json[]>;
    if ('Fn::Equals' in o) {
      const [a, b] = o['Fn::Equals'] as [Json, Json];
      return JSON.stringify(this.resolve(a)) === JSON.stringify(this.resolve(b));
    }
    if ('Fn::Not' in o) return !this.truth((o['Fn::Not'] as Json[])[0]);
    if ('Fn::And' in o) return (o['Fn::And'] as Json[]).every((c) => this.truth(c));
    if ('Fn::Or' in o) return (o['Fn::Or'] as Json[]).some((c) => this.truth(c));
    if ('Condition' in o) return this.condition(o.Condition as unknown as string);
    throw new Error(`${this.input.name}: unsupported condition ${JSON.stringify(body)}`);
  }

  private sub(text: string): string {
    return text.replace(/\$\{([^}]+)\}/g, (_, expr: string) => {
      const dot = expr.indexOf('.');
      if (dot > 0 && !expr.startsWith('AWS::')) return this.getAtt(expr.slice(0, dot), expr.slice(dot + 1));
      return this.ref(expr);
    });
  }

  /** A parameter that is a list (CommaDelimitedList) resolves to its items. */
  resolve(value: Json): Json {
    if (Array.isArray(value)) {
      return value.map((v) => this.resolve(v)).filter((v) => v !== NO_VALUE);
    }
    if (value === null || typeof value !== 'object') return value;
    const o = value as Record<string, Json>;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [key] = keys as [string];
      const arg = o[key];
      switch (key) {
        case 'Ref': {
          if (arg === 'AWS::NoValue') return NO_VALUE;
          const name = arg as string;
          const declared = this.input.template.Parameters?.[name] as { Type?: string } | undefined;
          const v = this.ref(name);
          return declared?.Type === 'CommaDelimitedList' ? v.split(',').filter(Boolean) : v;
        }
        case 'Fn::Sub':
          return this.sub(arg as string);
        case 'Fn::Join': {
          const [sep, parts] = arg as [string, Json[]];
          return (this.resolve(parts) as Json[]).map(String).join(sep);
        }
        case 'Fn::GetAtt': {
          const [id, attr] = (Array.isArray(arg) ? arg : String(arg).split('.')) as [string, string];
          return this.getAtt(id, attr);
        }
        case 'Fn::If': {
          const [cond, yes, no] = arg as [string, Json, Json];
          return this.resolve(this.condition(cond) ? yes : no);
        }
        case 'Fn::ImportValue':
          return `imported:${JSON.stringify(arg)}`;
      }
    }
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(o)) {
      const r = this.resolve(v);
      if (r !== NO_VALUE) out[k] = r;
    }
    return out;
  }

  /** Whether a resource exists (its `Condition`, if any, holds). */
  exists(id: string): boolean {
    const c = this.input.template.Resources[id]?.Condition;
    return c === undefined || this.condition(c);
  }

  arnOfRole(id: string): string {
    return this.getAtt(id, 'Arn');
  }

  refOf(id: string): string {
    return this.resource(id).ref;
  }
}

const list = (v: Json): string[] =>
  v === undefined
    ? []
    : Array.isArray(v)
      ? (v.flat(Number.POSITIVE_INFINITY) as Json[]).map(String)
      : [String(v)];

function statementsOf(document: Json): Statement[] {
  const raw = (document as { Statement?: Json }).Statement;
  return (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((s) => {
    const st = s as Record<string, Json>;
    return {
      ...(st.Sid === undefined ? {} : { sid: String(st.Sid) }),
      effect: st.Effect === 'Deny' ? 'Deny' : 'Allow',
      actions: list(st.Action),
      ...(st.NotAction === undefined ? {} : { notActions: list(st.NotAction) }),
      resources: list(st.Resource),
      ...(st.NotResource === undefined ? {} : { notResources: list(st.NotResource) }),
      conditional: st.Condition !== undefined && Object.keys(st.Condition as object).length > 0,
    };
  });
}

/** Every role of the templates, with the statements of its inline, attached and managed policies. */
export function principalsOf(inputs: TemplateInput[]): {
  principals: Principal[];
  managed: Map<string, Statement[]>;
} {
  const managed = new Map<string, Statement[]>();
  const resolvers = inputs.map((input) => ({ input, r: new Resolver(input) }));
  for (const { input, r } of resolvers) {
    for (const [id, res] of Object.entries(input.template.Resources)) {
      if (res.Type !== 'AWS::IAM::ManagedPolicy' || !r.exists(id)) continue;
      managed.set(r.refOf(id), statementsOf(r.resolve(res.Properties?.PolicyDocument)));
    }
  }
  const principals: Principal[] = [];
  for (const { input, r } of resolvers) {
    const resources = Object.entries(input.template.Resources).filter(([id]) => r.exists(id));
    for (const [id, res] of resources) {
      if (res.Type !== 'AWS::IAM::Role') continue;
      const p = (r.resolve(res.Properties) ?? {}) as Record<string, Json>;
      const statements: Statement[] = [];
      for (const policy of (p.Policies as { PolicyDocument: Json }[] | undefined) ?? []) {
        statements.push(...statementsOf(policy.PolicyDocument));
      }
      for (const [, other] of resources) {
        if (other.Type !== 'AWS::IAM::Policy') continue;
        const roles = JSON.stringify(other.Properties?.Roles ?? []);
        if (!roles.includes(`"${id}"`)) continue;
        statements.push(...statementsOf(r.resolve(other.Properties?.PolicyDocument)));
      }
      const awsManaged: string[] = [];
      for (const arn of list(p.ManagedPolicyArns)) {
        const known = managed.get(arn);
        if (known) statements.push(...known);
        else awsManaged.push(arn);
      }
      principals.push({
        arn: r.arnOfRole(id),
        name: r.refOf(id),
        source: input.name,
        statements,
        boundary: p.PermissionsBoundary === undefined ? null : String(p.PermissionsBoundary),
        awsManaged,
      });
    }
  }
  return { principals, managed };
}

/** IAM's wildcard match (`*` any run, `?` one character), case-sensitive like ARNs. */
export function globMatch(pattern: string, value: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(value);
}

const actionMatch = (pattern: string, action: string) =>
  globMatch(pattern.toLowerCase(), action.toLowerCase());

/** Reads never change anything; everything else counts as a change. */
export function isRead(action: string): boolean {
  const verb = action.split(':')[1] ?? '';
  return (
    /^(Describe|Get|List|BatchGet|BatchCheck|Head|Search|Lookup|Validate)/.test(verb) &&
    verb !== 'GetFederationToken'
  );
}

/** Actions that take no resource ARN: `*` is all they can name, so their condition is their scope. */
export const NO_RESOURCE_ACTIONS = new Set(['cloudwatch:PutMetricData']);

const statementCovers = (s: Statement, action: string, resource: string): boolean => {
  const actionIn = s.notActions
    ? !s.notActions.some((a) => actionMatch(a, action))
    : s.actions.some((a) => actionMatch(a, action));
  if (!actionIn) return false;
  return s.notResources
    ? !s.notResources.some((r) => globMatch(r, resource))
    : s.resources.some((r) => globMatch(r, resource));
};

/**
 * The roles the calibration role reaches, each with the path to it, then every allowed statement
 * checked against the production targets.
 */
export function reachFrom(
  start: string,
  inputs: TemplateInput[],
  production: ProductionTarget[],
): ReachReport {
  const { principals, managed } = principalsOf(inputs);
  const byName = new Map(principals.map((p) => [p.name, p]));
  const first = byName.get(start);
  if (!first) throw new Error(`no role ${start} in ${inputs.map((i) => i.name).join(', ')}`);
  const via = new Map<string, string[]>([[first.arn, []]]);
  const queue = [first];
  const reached: Principal[] = [];
  while (queue.length > 0) {
    const p = queue.shift() as Principal;
    reached.push(p);
    for (const s of p.statements) {
      if (s.effect !== 'Allow') continue;
      const hands = s.actions.some((a) => actionMatch(a, 'sts:AssumeRole') || actionMatch(a, 'iam:PassRole'));
      if (!hands) continue;
      for (const next of principals) {
        if (via.has(next.arn)) continue;
        if (!s.resources.some((r) => globMatch(r, next.arn))) continue;
        via.set(next.arn, [...(via.get(p.arn) ?? []), p.name]);
        queue.push(next);
      }
    }
  }
  const rows: ReachRow[] = [];
  const findings: Finding[] = [];
  for (const p of reached) {
    const boundary = p.boundary ? (managed.get(p.boundary) ?? []) : [];
    const denies = [...p.statements, ...boundary].filter((s) => s.effect === 'Deny' && !s.conditional);
    const denied = (action: string, resource: string) =>
      denies.some((d) => statementCovers(d, action, resource));
    for (const arn of p.awsManaged) {
      findings.push({
        principal: p.name,
        action: '*',
        resource: arn,
        reason: 'an AWS managed policy (the whole account)',
      });
    }
    for (const s of p.statements) {
      rows.push({
        principal: p.name,
        via: via.get(p.arn) ?? [],
        ...(s.sid === undefined ? {} : { sid: s.sid }),
        effect: s.effect,
        actions: s.notActions ? s.notActions.map((a) => `NOT ${a}`) : s.actions,
        resources: s.notResources ? s.notResources.map((r) => `NOT ${r}`) : s.resources,
      });
      if (s.effect !== 'Allow') continue;
      const actions = s.notActions ? ['*'] : s.actions;
      const resources = s.notResources ? ['*'] : s.resources;
      for (const action of actions) {
        for (const resource of resources) {
          if (resource === '*') {
            if (isRead(action)) continue;
            if (NO_RESOURCE_ACTIONS.has(action) && s.conditional) continue;
            if (denied(action, '*')) continue;
            findings.push({
              principal: p.name,
              ...sid(s),
              action,
              resource,
              reason: 'a changing action on *',
            });
            continue;
          }
          for (const target of production) {
            if (target.writesOnly && isRead(action)) continue;
            if (!globMatch(resource, target.arn)) continue;
            if (denied(action, target.arn)) continue;
            findings.push({ principal: p.name, ...sid(s), action, resource, reason: target.what });
          }
        }
      }
    }
  }
  return { principals: reached, rows, findings };
}

const sid = (s: Statement) => (s.sid === undefined ? {} : { sid: s.sid });

/** The table `npm run iam:report` prints: principal | actions | resources, one row per statement. */
export function renderReach(report: ReachReport): string {
  const lines = ['principal | effect | actions | resources', '--- | --- | --- | ---'];
  for (const row of report.rows) {
    lines.push(
      `${row.principal}${row.sid ? ` (${row.sid})` : ''} | ${row.effect} | ${row.actions.join(', ')} | ${row.resources.join(', ')}`,
    );
  }
  const allows = report.rows.filter((r) => r.effect === 'Allow');
  const actions = new Set(allows.flatMap((r) => r.actions));
  lines.push(
    '',
    `reachable from the calibration role: ${report.principals.length} principals (${report.principals
      .map((p) => p.name)
      .join(', ')})`,
    `${allows.length} allow statements, ${actions.size} distinct actions, ${report.rows.length - allows.length} deny statements`,
  );
  if (report.findings.length === 0) {
    lines.push(
      'findings: none (no statement reaches a production stack, endpoint, bootstrap role or * with a change)',
    );
  } else {
    lines.push(`findings: ${report.findings.length}`);
    for (const f of report.findings) {
      lines.push(`  ${f.principal}${f.sid ? ` (${f.sid})` : ''}: ${f.action} on ${f.resource}: ${f.reason}`);
    }
  }
  return lines.join('\n');
}
