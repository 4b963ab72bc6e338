/**
 * The fleet behind one endpoint variant: every instance is a real container process on its own
 * loopback port. An instance is provisioned (a configurable delay, the "boot"), then its process
 * starts, its stdout/stderr become the log stream `<variant>/<instance-id>`, and it is InService
 * once GET /ping answers 200. Removing one sends SIGTERM: it leaves the routing at once, finishes
 * what it holds, and is gone when the process exits.
 *
 * Endpoint status follows SageMaker: `Creating` until the initial instances serve (`Failed` if one
 * cannot start), `Updating` while a capacity change or a new endpoint config is carried out (a
 * second change meanwhile is refused), `InService` when settled, `Deleting` while it goes away. A
 * scale-out whose new instance fails to start rolls back: the new instances are stopped, the
 * desired count returns to the old one, the endpoint returns to `InService` with `FailureReason`
 * set.
 *
 * A new endpoint config (UpdateEndpoint) is deployed blue/green, as SageMaker does by default
 * (all at once): a new fleet starts on the new model (its image and environment) beside the old
 * one, which keeps all the traffic; once every new instance is InService the traffic shifts to
 * it, and the old instances are drained (SIGTERM: they finish what they hold) and stopped. If a
 * new instance cannot start, the new fleet is stopped and the endpoint stays on its old config,
 * `InService` with `FailureReason` set.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import { AwsError, validation } from './aws-error.js';
import type { Faults } from './faults.js';
import type { LogStore, LogStream } from './logs.js';
import { endpointQuotaName } from './quotas.js';

export interface ContainerSpec {
  /** argv of the container process, e.g. `[process.execPath, 'infra/container/dist/server.js']`. */
  command: string[];
  cwd?: string;
  /** Added to the environment of every instance (below the model environment and PORT/HOST). */
  env?: Record<string, string>;
  /**
   * A stdout/stderr line matching this announces the port the container listens on (group 1).
   * When set, the container gets PORT=0 and picks a free port itself: no window in which another
   * process can take a port we chose. When unset, a free port is chosen here and passed as PORT.
   */
  portFromOutput?: RegExp;
}

export type InstanceState = 'Pending' | 'Booting' | 'InService' | 'Draining' | 'Terminated' | 'Failed';
export type EndpointStatus = 'Creating' | 'Updating' | 'InService' | 'Failed' | 'Deleting';

/**
 * What one production variant runs: the model (image, environment) of an endpoint config's
 * variant, with that variant's settings. The endpoint's current one, or the one an update deploys.
 */
export interface VariantDeployment {
  endpointConfigName: string;
  modelName: string;
  imageUri: string;
  /** The model's container environment. */
  environment: Record<string, string>;
  instanceType: string;
  /** InitialInstanceCount of the endpoint config's variant. */
  initialInstanceCount: number;
  /** When this deployment started serving (DeployedImages ResolutionTime). */
  deployedAtMs: number;
}

export interface InstanceInfo {
  id: string;
  state: InstanceState;
  port: number | undefined;
  pid: number | undefined;
  logStreamName: string;
  launchedAtMs: number;
  inServiceAtMs: number | undefined;
  inFlight: number;
  /** The model environment this instance was started with. */
  environment: Record<string, string>;
  /** The endpoint config whose model it runs. */
  endpointConfigName: string;
}

/**
 * How an instance that shares a container process with others starts: instances launched with the
 * same `key` are served by one process (one emulated device, whose lanes all their requests go
 * through). The first one starts the process; a later one joins it once it serves and replays its
 * own start-up (`replayMs`) first. The process stops when its last instance has gone.
 */
export interface ProcessShare {
  key: string;
  /** The start-up a later instance replays before it serves from the running process (ms). */
  replayMs: number;
}

/** One container process serving the instances launched with one share key. */
export class SharedProcess {
  readonly members = new Set<Instance>();
  constructor(
    readonly key: string,
    /** The process's own instance: never routed to, never listed; its members are. */
    readonly carrier: Instance,
  ) {}
}

export class Instance {
  readonly id = `i-${randomBytes(9).toString('hex').slice(0, 17)}`;
  state: InstanceState = 'Pending';
  port: number | undefined;
  /** The port was chosen here (not announced by the container) and is held in reservedPorts. */
  portReserved = false;
  proc: ChildProcess | undefined;
  /** Set when this instance shares a container process (see ProcessShare). */
  share: ProcessShare | undefined;
  /** The shared process it is served by (a member), or that it runs (the carrier). */
  group: SharedProcess | undefined;
  /** Called whenever its outstanding requests drop to 0 (a member's drain waits for it). */
  onIdle: (() => void) | undefined;
  private outstanding = 0;
  readonly launchedAtMs = Date.now();
  inServiceAtMs: number | undefined;
  exitCode: number | null | undefined;
  /** 1-based launch order within its endpoint. */
  ordinal = 0;
  /** The endpoint config whose model it runs. */
  endpointConfigName = '';
  lastLines: string[] = [];
  bootTimer: NodeJS.Timeout | undefined;
  pingTimer: NodeJS.Timeout | undefined;
  /** true once InService; false if it failed or was stopped before that. */
  readonly ready: Promise<boolean>;
  /** Resolves when the process has exited (at once if it never started). */
  readonly exited: Promise<void>;
  settleReady!: (ok: boolean) => void;
  settleExited!: () => void;

  readonly logStreamName: string;

  constructor(
    variantName: string,
    readonly environment: Record<string, string>,
    readonly failAtStage: string | undefined,
    /** Which deployment of its endpoint it belongs to (blue/green: only the routed one serves). */
    readonly generation: number,
    logStreamName?: string,
  ) {
    this.logStreamName = logStreamName ?? `${variantName}/${this.id}`;
    this.ready = new Promise((resolve) => {
      this.settleReady = resolve;
    });
    this.exited = new Promise((resolve) => {
      this.settleExited = resolve;
    });
  }

  /** Requests sent to it and not yet answered (the runtime counts them; routing reads them). */
  get inFlight(): number {
    return this.outstanding;
  }

  set inFlight(n: number) {
    this.outstanding = n;
    if (n === 0) this.onIdle?.();
  }

  /** Its container process (a member's is its shared process's). */
  get pid(): number | undefined {
    return (this.proc ?? (this.group?.carrier !== this ? this.group?.carrier.proc : undefined))?.pid;
  }

  info(): InstanceInfo {
    return {
      id: this.id,
      state: this.state,
      port: this.port,
      pid: this.pid,
      logStreamName: this.logStreamName,
      launchedAtMs: this.launchedAtMs,
      inServiceAtMs: this.inServiceAtMs,
      inFlight: this.inFlight,
      environment: { ...this.environment },
      endpointConfigName: this.endpointConfigName,
    };
  }
}

/**
 * A booting container runs at a lower CPU priority until it is in service: on AWS a new instance
 * boots on its own host, so its start-up (process start, compilation, the first syntheses) must
 * not slow the instances already serving, which on this one host share the cores with it.
 */
const BOOT_NICENESS = 10;
function renice(pid: number | undefined, niceness: number): boolean {
  if (pid === undefined) return false;
  try {
    setPriority(pid, niceness);
    return true;
  } catch {
    // Not permitted (raising a priority back needs privileges) or the process is gone.
    return false;
  }
}

/** Every live container process of this Node process, killed on exit as a last resort. */
const liveProcesses = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(proc: ChildProcess): void {
  liveProcesses.add(proc);
  proc.once('exit', () => liveProcesses.delete(proc));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A process that exits without close() (crash, process.exit) must not leave containers behind.
    process.once('exit', killAllContainers);
  }
}

/** SIGKILLs every container process this Node process started (a last resort, synchronous). */
export function killAllContainers(): void {
  for (const p of liveProcesses) p.kill('SIGKILL');
}

const reservedPorts = new Set<number>();
async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    // Two instances booting at once must never be handed the same port.
    if (!reservedPorts.has(port)) {
      reservedPorts.add(port);
      return port;
    }
  }
  throw new Error('no free loopback port');
}

function ping(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: '/ping', agent: false, timeout: timeoutMs },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** What a container sees besides its model environment: enough to run a program, nothing of ours. */
function baseEnvironment(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'SystemRoot']) {
    const v = process.env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

export interface EndpointOptions {
  endpointName: string;
  variantName: string;
  /** The endpoint config it is created with (what deploy() starts). */
  deployment: VariantDeployment;
  container: ContainerSpec;
  provisionDelayMs: number;
  /** Longest an instance may take from process start to /ping 200 before it counts as failed. */
  startupTimeoutMs: number;
  pingIntervalMs: number;
  /** SIGTERM drain allowance before SIGKILL when an instance is removed by a scale-in. */
  drainTimeoutMs: number;
  /** From /ping 200 to InService (a replayed start-up: health checks, registration); default 0. */
  inServiceDelayMs?: number;
  /** Environment of the n-th instance launched (1-based), beside PORT/HOST; not model environment. */
  instanceEnvironment?: (ordinal: number) => Record<string, string>;
  quota: () => number;
  logs: LogStore;
  faults: Faults;
  region: string;
  accountId: string;
  log?: (line: string) => void;
  /** Called with every container output line (for `local up --verbose` style echoing). */
  onContainerLine?: (instanceId: string, line: string) => void;
  /** Every container process started, so a caller can prove none outlives it. */
  onProcessStart?: (instanceId: string, pid: number) => void;
  /** Log group of its containers; default `/aws/sagemaker/Endpoints/<endpointName>`. */
  logGroup?: string;
}

export class Endpoint extends EventEmitter {
  status: EndpointStatus = 'Creating';
  desired = 0;
  failureReason: string | undefined;
  readonly creationTimeMs = Date.now();
  lastModifiedTimeMs = this.creationTimeMs;
  /** What the routed instances run (the endpoint config DescribeEndpoint names). */
  deployment: VariantDeployment;
  /** The endpoint config an update is deploying; null when none is. */
  pending: { deployment: VariantDeployment; startMs: number; desired: number } | null = null;
  readonly logGroup: string;
  /** Every instance not yet gone (Pending, Booting, InService, Draining). */
  private instances: Instance[] = [];
  private closing = false;
  private rr = 0;
  private launched = 0;
  /** The routed deployment's number; an update launches the next one. */
  private generation = 1;
  /** Shared container processes by share key (the live one of each key). */
  private readonly shared = new Map<string, SharedProcess>();

  constructor(readonly opts: EndpointOptions) {
    super();
    this.deployment = { ...opts.deployment, environment: { ...opts.deployment.environment } };
    this.logGroup = opts.logGroup ?? `/aws/sagemaker/Endpoints/${opts.endpointName}`;
    opts.logs.createGroup(this.logGroup);
  }

  /** Environment of the routed model: what new instances of a capacity change start with. */
  get environment(): Record<string, string> {
    return this.deployment.environment;
  }

  get name(): string {
    return this.opts.endpointName;
  }

  get variantName(): string {
    return this.opts.variantName;
  }

  get arn(): string {
    return `arn:aws:sagemaker:${this.opts.region}:${this.opts.accountId}:endpoint/${this.name.toLowerCase()}`;
  }

  /** Instances that take traffic (InService, of the routed deployment): CurrentInstanceCount. */
  serving(): Instance[] {
    return this.instances.filter((i) => i.state === 'InService' && i.generation === this.generation);
  }

  get current(): number {
    return this.serving().length;
  }

  /** Instances held (every one not yet gone, of any deployment): what counts against the quota. */
  get held(): number {
    return this.instances.length;
  }

  /** InService instances of the deployment an update is starting (0 when none is). */
  get pendingInService(): number {
    return this.instances.filter((i) => i.state === 'InService' && i.generation > this.generation).length;
  }

  list(): InstanceInfo[] {
    return this.instances.map((i) => i.info());
  }

  /** Least outstanding requests among InService instances; ties go round robin. */
  pick(): Instance | undefined {
    const serving = this.serving();
    if (serving.length === 0) return undefined;
    const least = Math.min(...serving.map((i) => i.inFlight));
    const tied = serving.filter((i) => i.inFlight === least);
    const chosen = tied[this.rr % tied.length] as Instance;
    this.rr = (this.rr + 1) % 1_000_000;
    return chosen;
  }

  private changed(): void {
    this.emit('change');
  }

  private touch(): void {
    this.lastModifiedTimeMs = Date.now();
    this.changed();
  }

  /** Resolves when `predicate` holds (checked at every state change). */
  waitFor(predicate: () => boolean): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (predicate()) {
          this.off('change', check);
          resolve();
        }
      };
      this.on('change', check);
    });
  }

  // ---- capacity changes --------------------------------------------------------------------

  /** Initial deployment: Creating -> InService, or Failed if an instance cannot start. */
  async deploy(count: number): Promise<void> {
    this.checkQuota(count, 0);
    this.desired = count;
    this.status = 'Creating';
    this.touch();
    const launched = Array.from({ length: count }, () => this.launch());
    const ok = await Promise.all(launched.map((i) => i.ready));
    if (this.closing) return;
    if (ok.every(Boolean)) {
      this.status = 'InService';
    } else {
      // A failed endpoint runs nothing.
      await Promise.all(launched.map((i) => this.stop(i, this.opts.drainTimeoutMs)));
      this.status = 'Failed';
      this.failureReason = this.healthCheckFailure();
    }
    this.touch();
  }

  private healthCheckFailure(): string {
    return `The primary container for production variant ${this.variantName} did not pass the ping health check. Please check CloudWatch logs for this endpoint.`;
  }

  private checkQuota(desired: number, currentUse: number): void {
    const quota = this.opts.quota();
    if (desired > quota) {
      throw new AwsError(
        'ResourceLimitExceeded',
        `The account-level service limit '${endpointQuotaName(this.deployment.instanceType)}' is ${quota} Instances, with current utilization of ${currentUse} Instances and a request delta of ${desired - currentUse} Instances. Please use AWS Service Quotas to request an increase for this quota. If AWS Service Quotas is not available, contact AWS support to request an increase for this quota.`,
        400,
      );
    }
  }

  private refuseUnlessInService(): void {
    if (this.closing || this.status === 'Deleting')
      throw validation(`Cannot update in-progress endpoint "${this.arn}".`);
    if (this.status === 'InService') return;
    const what = this.status === 'Failed' ? 'failed' : 'in-progress';
    throw validation(`Cannot update ${what} endpoint "${this.arn}".`);
  }

  /**
   * UpdateEndpointWeightsAndCapacities / Application Auto Scaling: validates now (throws AwsError),
   * then carries the change out in the background, as SageMaker does.
   */
  setDesired(count: number): void {
    if (!Number.isInteger(count) || count < 1)
      throw validation(`DesiredInstanceCount must be an integer of at least 1 (got ${count}).`);
    this.refuseUnlessInService();
    this.checkQuota(count, this.desired);
    const previous = this.desired;
    this.desired = count;
    this.status = 'Updating';
    this.failureReason = undefined;
    this.touch();
    void this.carryOut(previous, count);
  }

  private async carryOut(previous: number, count: number): Promise<void> {
    const serving = this.serving();
    if (count > serving.length) {
      const launched = Array.from({ length: count - serving.length }, () => this.launch());
      const ok = await Promise.all(launched.map((i) => i.ready));
      if (this.closing) return;
      if (!ok.every(Boolean)) {
        await Promise.all(launched.map((i) => this.stop(i, this.opts.drainTimeoutMs)));
        if (this.closing) return;
        this.desired = previous;
        this.failureReason = `Failed to update endpoint: ${this.healthCheckFailure()}`;
      }
    } else if (count < serving.length) {
      // The newest instances go first; they leave the routing now and drain.
      const victims = serving.slice(count);
      await Promise.all(victims.map((i) => this.stop(i, this.opts.drainTimeoutMs)));
      if (this.closing) return;
      // Injected: a drain as slow as AWS's keeps the endpoint Updating a while longer.
      const slowDrain = this.opts.faults.scaleInDelayMs;
      if (slowDrain > 0) await new Promise((resolve) => setTimeout(resolve, slowDrain));
      if (this.closing) return;
    }
    this.status = 'InService';
    this.touch();
  }

  /**
   * UpdateEndpoint: validates now (throws AwsError), then deploys `next` blue/green in the
   * background: a new fleet of `desired` instances (the endpoint's current desired count when the
   * variant properties are retained, else the config's InitialInstanceCount) beside the old one;
   * traffic shifts once all are InService; the old ones drain and stop. A new instance that fails
   * to start rolls the update back (old config kept, FailureReason set).
   */
  update(next: VariantDeployment, retainDesiredCount: boolean): void {
    this.refuseUnlessInService();
    const desired = retainDesiredCount ? this.desired : next.initialInstanceCount;
    // Both fleets run at once during the shift: the quota must hold them together.
    this.checkQuota(this.held + desired, this.held);
    this.pending = {
      deployment: { ...next, environment: { ...next.environment } },
      startMs: Date.now(),
      desired,
    };
    this.status = 'Updating';
    this.failureReason = undefined;
    this.touch();
    void this.blueGreen();
  }

  private async blueGreen(): Promise<void> {
    const pending = this.pending as NonNullable<Endpoint['pending']>;
    const generation = this.generation + 1;
    const green = Array.from({ length: pending.desired }, () => this.launch(pending.deployment, generation));
    const ok = await Promise.all(green.map((i) => i.ready));
    if (this.closing) return;
    if (!ok.every(Boolean)) {
      await Promise.all(green.map((i) => this.stop(i, this.opts.drainTimeoutMs)));
      if (this.closing) return;
      this.pending = null;
      this.failureReason = `Failed to update endpoint: ${this.healthCheckFailure()}`;
      this.opts.log?.(
        `update to ${pending.deployment.endpointConfigName} rolled back: ${this.failureReason}`,
      );
      this.status = 'InService';
      this.touch();
      return;
    }
    // Traffic shifts at once (ALL_AT_ONCE): from here the new fleet serves and the old one drains.
    const blue = this.instances.filter((i) => i.generation < generation);
    this.deployment = { ...pending.deployment, deployedAtMs: Date.now() };
    this.generation = generation;
    this.desired = pending.desired;
    this.pending = null;
    this.opts.log?.(
      `traffic shifted to ${this.deployment.endpointConfigName}; draining ${blue.length} old instance(s)`,
    );
    this.changed();
    await Promise.all(blue.map((i) => this.stop(i, this.opts.drainTimeoutMs)));
    if (this.closing) return;
    this.status = 'InService';
    this.touch();
  }

  /**
   * Emulator-only shortcut (tests): changes the routed model's environment in place (undefined
   * removes a key); instances started from now on get it, running ones keep theirs. On AWS a
   * model is immutable: a new environment is a new model + endpoint config + UpdateEndpoint.
   */
  setEnvironmentInPlace(env: Record<string, string | undefined>): void {
    const next = { ...this.deployment.environment };
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete next[k];
      else next[k] = v;
    }
    this.deployment = { ...this.deployment, environment: next };
    this.touch();
  }

  /** DeleteEndpoint: Deleting now; every instance drains and stops; resolves when all are gone. */
  async delete(): Promise<void> {
    this.status = 'Deleting';
    this.touch();
    await this.close(this.opts.drainTimeoutMs);
  }

  // ---- instances ---------------------------------------------------------------------------

  /**
   * One more instance of the routed deployment, its process started after `provisionDelayMs`
   * (the inference-component copies: 0 on an instance already running, the instance's
   * provisioning otherwise). The caller owns the count; `desired` is not changed.
   */
  launchOne(provisionDelayMs: number, share?: ProcessShare): Instance {
    return this.launch(this.deployment, this.generation, provisionDelayMs, share);
  }

  /** The container processes shared by instances now (one per share key), for inspection. */
  sharedProcesses(): { key: string; pid: number | undefined; members: string[] }[] {
    return [...this.shared.values()].map((g) => ({
      key: g.key,
      pid: g.carrier.pid,
      members: [...g.members].map((m) => m.id),
    }));
  }

  /** Stops one instance (SIGTERM, drain, SIGKILL after the drain allowance); resolves when gone. */
  stopOne(inst: Instance): Promise<void> {
    return this.stop(inst, this.opts.drainTimeoutMs);
  }

  /** Every instance not yet gone, in launch order. */
  live(): Instance[] {
    return [...this.instances];
  }

  private launch(
    deployment: VariantDeployment = this.deployment,
    generation = this.generation,
    provisionDelayMs = this.opts.provisionDelayMs,
    share?: ProcessShare,
  ): Instance {
    const failAtStage = this.opts.faults.takeInstanceFailure();
    const inst = new Instance(this.variantName, { ...deployment.environment }, failAtStage, generation);
    inst.endpointConfigName = deployment.endpointConfigName;
    inst.share = share;
    this.launched += 1;
    inst.ordinal = this.launched;
    this.instances.push(inst);
    this.opts.log?.(`instance ${inst.id}: provisioning (${provisionDelayMs} ms)`);
    inst.bootTimer = setTimeout(() => {
      inst.bootTimer = undefined;
      void this.boot(inst);
    }, provisionDelayMs);
    this.changed();
    return inst;
  }

  private async boot(inst: Instance): Promise<void> {
    if (inst.state !== 'Pending' || this.closing) return;
    if (inst.share) return this.join(inst, inst.share);
    const { command, cwd, env: specEnv, portFromOutput } = this.opts.container;
    let port = 0;
    if (!portFromOutput) {
      try {
        port = await freePort();
      } catch (e) {
        this.fail(inst, `no port: ${(e as Error).message}`);
        return;
      }
      if (inst.state !== 'Pending' || this.closing) {
        reservedPorts.delete(port);
        return;
      }
      inst.port = port;
      inst.portReserved = true;
    }
    const env: Record<string, string> = {
      ...baseEnvironment(),
      ...(specEnv ?? {}),
      ...inst.environment,
      ...(this.opts.instanceEnvironment?.(inst.ordinal) ?? {}),
      PORT: String(port),
      HOST: '127.0.0.1',
      ...(inst.failAtStage ? { FAIL_AT_STAGE: inst.failAtStage } : {}),
    };
    const stream = this.opts.logs.createStream(this.logGroup, inst.logStreamName);
    const proc = spawn(command[0] as string, command.slice(1), {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    inst.proc = proc;
    inst.state = 'Booting';
    if (proc.pid !== undefined) track(proc);
    renice(proc.pid, BOOT_NICENESS);
    this.pipeLines(inst, stream, proc);
    let exited = false;
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (exited) return;
      exited = true;
      this.onExit(inst, code, signal);
    };
    proc.once('exit', onExit);
    proc.once('error', (err) => {
      // spawn failure (ENOENT ...): no 'exit' follows.
      inst.lastLines.push(String(err.message));
      if (proc.pid === undefined) onExit(null, null);
    });
    this.opts.log?.(`instance ${inst.id}: started pid ${proc.pid}${port ? ` port ${port}` : ''}`);
    if (proc.pid !== undefined) this.opts.onProcessStart?.(inst.id, proc.pid);
    this.changed();
    const deadline = Date.now() + this.opts.startupTimeoutMs;
    const tick = async () => {
      inst.pingTimer = undefined;
      if (inst.state !== 'Booting') return;
      if (Date.now() > deadline) {
        this.opts.log?.(`instance ${inst.id}: no /ping 200 within ${this.opts.startupTimeoutMs} ms`);
        inst.state = 'Failed';
        inst.settleReady(false);
        proc.kill('SIGKILL');
        return;
      }
      // A container that announces its port can only be pinged once it has.
      const ok = inst.port !== undefined && (await ping(inst.port, 1000));
      if (inst.state !== 'Booting') return;
      if (ok) {
        const promote = () => {
          inst.pingTimer = undefined;
          if (inst.state !== 'Booting') return;
          inst.state = 'InService';
          inst.inServiceAtMs = Date.now();
          if (!renice(inst.pid, 0)) {
            this.opts.log?.(`instance ${inst.id}: serves at its boot priority (not permitted to restore it)`);
          }
          this.opts.log?.(`instance ${inst.id}: InService`);
          inst.settleReady(true);
          this.changed();
        };
        const delay = this.opts.inServiceDelayMs ?? 0;
        if (delay > 0) {
          this.opts.log?.(`instance ${inst.id}: healthy; in service in ${(delay / 1000).toFixed(1)} s`);
          inst.pingTimer = setTimeout(promote, delay);
        } else {
          promote();
        }
      } else {
        inst.pingTimer = setTimeout(tick, this.opts.pingIntervalMs);
      }
    };
    inst.pingTimer = setTimeout(tick, this.opts.pingIntervalMs);
  }

  private pipeLines(inst: Instance, stream: LogStream, proc: ChildProcess): void {
    for (const source of [proc.stdout, proc.stderr]) {
      if (!source) continue;
      const rl = createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY });
      rl.on('line', (line) => {
        // The time the line arrived is its event time, as the SageMaker log agent records it.
        this.opts.logs.put(stream, line, Date.now());
        if (inst.port === undefined && this.opts.container.portFromOutput) {
          const m = this.opts.container.portFromOutput.exec(line);
          if (m?.[1]) inst.port = Number(m[1]);
        }
        inst.lastLines.push(line);
        if (inst.lastLines.length > 20) inst.lastLines.shift();
        this.opts.onContainerLine?.(inst.id, line);
      });
    }
  }

  private fail(inst: Instance, why: string): void {
    this.opts.log?.(`instance ${inst.id}: failed (${why})`);
    inst.state = 'Failed';
    inst.settleReady(false);
    inst.settleExited();
    this.remove(inst);
  }

  private remove(inst: Instance): void {
    this.instances = this.instances.filter((i) => i !== inst);
    if (inst.portReserved && inst.port !== undefined) reservedPorts.delete(inst.port);
    this.changed();
  }

  private onExit(inst: Instance, code: number | null, signal: NodeJS.Signals | null): void {
    inst.exitCode = code;
    if (inst.pingTimer) clearTimeout(inst.pingTimer);
    const was = inst.state;
    this.opts.log?.(`instance ${inst.id}: exited (code ${code}, signal ${signal}) while ${was}`);
    inst.state = was === 'Draining' ? 'Terminated' : 'Failed';
    inst.settleReady(false);
    inst.settleExited();
    this.remove(inst);
    const group = inst.group;
    if (group && group.carrier === inst) {
      // A shared process gone: every instance it served is gone with it.
      if (this.shared.get(group.key) === group) this.shared.delete(group.key);
      for (const member of [...group.members]) this.memberGone(member);
      return;
    }
    this.replaceIfLost(inst, was);
  }

  /** SageMaker replaces an instance that dies under it; the endpoint stays InService. */
  private replaceIfLost(inst: Instance, was: InstanceState): void {
    if (
      was === 'InService' &&
      !this.closing &&
      this.status !== 'Failed' &&
      this.status !== 'Deleting' &&
      inst.generation === this.generation
    ) {
      this.opts.log?.(`instance ${inst.id}: replacing it`);
      this.launch(this.deployment, this.generation, this.opts.provisionDelayMs, inst.share);
    }
  }

  // ---- instances sharing one container process ------------------------------------------------

  /**
   * Boots a sharing instance: starts the key's process if none runs (or the running one is on its
   * way out), else joins it; serves once the process does and, when it joined a running process,
   * after replaying its own start-up.
   */
  private async join(inst: Instance, share: ProcessShare): Promise<void> {
    let group = this.shared.get(share.key);
    const starts = !group || group.carrier.state === 'Draining' || group.carrier.state === 'Failed';
    if (!group || starts) {
      // The process's log stream is its first instance's.
      const carrier = new Instance(
        this.variantName,
        inst.environment,
        inst.failAtStage,
        inst.generation,
        inst.logStreamName,
      );
      carrier.endpointConfigName = inst.endpointConfigName;
      carrier.ordinal = inst.ordinal;
      group = new SharedProcess(share.key, carrier);
      carrier.group = group;
      this.shared.set(share.key, group);
      void this.boot(carrier);
    }
    group.members.add(inst);
    inst.group = group;
    inst.state = 'Booting';
    this.opts.log?.(
      `instance ${inst.id}: ${starts ? 'starts' : 'joins'} the shared process ${group.carrier.id} (${share.key})`,
    );
    this.changed();
    const ok = await group.carrier.ready;
    if (inst.state !== 'Booting') return;
    if (!ok) {
      this.memberGone(inst);
      return;
    }
    const replay = starts ? 0 : share.replayMs + (this.opts.inServiceDelayMs ?? 0);
    const promote = () => {
      inst.pingTimer = undefined;
      if (inst.state !== 'Booting') return;
      const carrier = group.carrier;
      if (carrier.state !== 'InService' || inst.failAtStage) {
        // Its own start-up failed (injected), or the process went meanwhile.
        this.memberGone(inst);
        return;
      }
      inst.port = carrier.port;
      inst.state = 'InService';
      inst.inServiceAtMs = Date.now();
      this.opts.log?.(`instance ${inst.id}: InService (shared process ${carrier.id})`);
      inst.settleReady(true);
      this.changed();
    };
    if (replay > 0) inst.pingTimer = setTimeout(promote, replay);
    else promote();
  }

  /** A sharing instance leaves its process: drained (Terminated) or lost (Failed, replaced if it served). */
  private memberGone(inst: Instance): void {
    if (inst.state === 'Terminated' || inst.state === 'Failed') return;
    if (inst.pingTimer) clearTimeout(inst.pingTimer);
    // A drain waiting for its requests ends now: the process that held them is gone or done.
    const drained = inst.onIdle;
    inst.onIdle = undefined;
    const was = inst.state;
    inst.group?.members.delete(inst);
    inst.state = was === 'Draining' ? 'Terminated' : 'Failed';
    if (was !== 'Draining') this.opts.log?.(`instance ${inst.id}: lost with its shared process (${was})`);
    inst.settleReady(false);
    inst.settleExited();
    this.remove(inst);
    drained?.();
    this.replaceIfLost(inst, was);
  }

  /**
   * Stops a sharing instance: it leaves the routing at once and is gone when what it holds is
   * answered (or after `timeoutMs`); the last one of its process stops the process first.
   */
  private async stopMember(inst: Instance, group: SharedProcess, timeoutMs: number): Promise<void> {
    if (inst.state !== 'Draining') {
      inst.state = 'Draining';
      if (inst.pingTimer) clearTimeout(inst.pingTimer);
      inst.settleReady(false);
      this.opts.log?.(`instance ${inst.id}: leaves the shared process (draining ${inst.inFlight} in flight)`);
      this.changed();
      if (inst.inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          inst.onIdle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      group.members.delete(inst);
      if (group.members.size === 0) {
        if (this.shared.get(group.key) === group) this.shared.delete(group.key);
        await this.stop(group.carrier, timeoutMs);
      }
      this.memberGone(inst);
    }
    await inst.exited;
  }

  /** SIGTERM, drain, gone (SIGKILL after `timeoutMs`). Resolves when the process has exited. */
  private async stop(inst: Instance, timeoutMs: number): Promise<void> {
    if (inst.state === 'Pending') {
      if (inst.bootTimer) clearTimeout(inst.bootTimer);
      inst.state = 'Terminated';
      inst.settleReady(false);
      inst.settleExited();
      this.remove(inst);
      return;
    }
    if (inst.state === 'Terminated' || inst.state === 'Failed') return inst.exited;
    const group = inst.group;
    if (group && group.carrier !== inst) return this.stopMember(inst, group, timeoutMs);
    if (inst.state !== 'Draining') {
      inst.state = 'Draining';
      if (inst.pingTimer) clearTimeout(inst.pingTimer);
      inst.settleReady(false);
      this.opts.log?.(`instance ${inst.id}: SIGTERM (draining ${inst.inFlight} in flight)`);
      inst.proc?.kill('SIGTERM');
      this.changed();
    }
    const killer = setTimeout(() => inst.proc?.kill('SIGKILL'), timeoutMs);
    await inst.exited;
    clearTimeout(killer);
  }

  /** Stops every instance (SIGTERM, SIGKILL after `timeoutMs`) and waits until all have exited. */
  async close(timeoutMs: number): Promise<void> {
    this.closing = true;
    // An instance whose process has not been spawned yet may be between port and spawn: wait for
    // its state to move on rather than miss it.
    await Promise.all([...this.instances].map((i) => this.stop(i, timeoutMs)));
    // A shared process outlives no instance of it; none is left, but never leave one running.
    await Promise.all([...this.shared.values()].map((g) => this.stop(g.carrier, timeoutMs)));
    this.shared.clear();
    this.changed();
  }
}
