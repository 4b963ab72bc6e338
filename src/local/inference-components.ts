/**
 * Inference components (IC) of the local SageMaker: copies of a model packed onto the instances
 * of an endpoint whose production variant has no model of its own.
 *
 * - An IC-hosting endpoint (CreateEndpoint of such a config) holds emulated instances: capacity
 *   (accelerators, CPU cores, memory: INSTANCE_CAPACITY) with no process of their own. The
 *   config's InitialInstanceCount start with it; the endpoint is Creating until they are
 *   provisioned (the start-up profile's provisioning, replayed).
 * - The copies of an IC are the instances of a fleet (fleet.ts: one `Endpoint` per IC, log group
 *   `/aws/sagemaker/InferenceComponents/<name>`). Copies that reserve no accelerators on an
 *   instance with accelerators share its emulated device: one container process serves all such
 *   copies of the IC on that instance (copy-sharing.ts); a copy that reserves accelerators is its
 *   own process with its own device. A copy is placed on the first instance with room
 *   for its ComputeResourceRequirements; on an instance already running it starts at once (only
 *   its container start-up is replayed), otherwise it waits for the instance being provisioned.
 * - ManagedInstanceScaling: when a copy finds no room and the variant holds fewer than
 *   MaxInstanceCount instances, an instance is launched; instances left without copies are
 *   removed down to MinInstanceCount (0 allowed: scale to zero). Without it (or DISABLED) the
 *   instance count stays as created, and a copy without room waits.
 * - IC status: Creating until its copies serve (Failed if a copy cannot start), Updating while a
 *   copy count or specification change is carried out (a copy that cannot be placed keeps it
 *   Updating), InService when settled, Deleting while its copies drain.
 * - Data plane (runtime.ts): requests name the IC (`X-Amzn-SageMaker-Inference-Component`) and go
 *   to its copy with the fewest outstanding requests; with no copy serving they fail at once with
 *   SageMaker's no-capacity ValidationError and count in NoCapacityInvocationFailures.
 *
 * Limits, refused with a message: one specification per IC (no `Specifications`), no base
 * component (adapters), a specification update replaces copies one at a time (no
 * DeploymentConfig). A copy that dies is replaced by the fleet on the same terms as an instance.
 */

import { decodeToken, page } from './autoscaling/input.js';
import { AwsError, validation } from './aws-error.js';
import type { CapacityTarget, OperationHandler } from './contracts.js';
import { copyShare } from './copy-sharing.js';
import type { Endpoint, Instance, VariantDeployment } from './fleet.js';
import type { MetricStore } from './metrics.js';
import { VariantMetrics } from './metrics.js';
import type { EndpointConfigRecord, ModelRecord } from './models.js';
import { epochSeconds, type Input, memberReader, unknownOperation } from './wire.js';

/** What one instance offers to the copies placed on it. */
export interface InstanceCapacity {
  accelerators: number;
  cpuCores: number;
  memoryMb: number;
}

/** Accelerator devices, vCPUs and memory (MiB) per instance type (the EC2 instance specifications). */
export const INSTANCE_CAPACITY: Record<string, InstanceCapacity> = {
  'ml.g4dn.xlarge': { accelerators: 1, cpuCores: 4, memoryMb: 16_384 },
  'ml.g4dn.2xlarge': { accelerators: 1, cpuCores: 8, memoryMb: 32_768 },
  'ml.g4dn.12xlarge': { accelerators: 4, cpuCores: 48, memoryMb: 196_608 },
  'ml.g5.xlarge': { accelerators: 1, cpuCores: 4, memoryMb: 16_384 },
  'ml.g5.2xlarge': { accelerators: 1, cpuCores: 8, memoryMb: 32_768 },
  'ml.g5.4xlarge': { accelerators: 1, cpuCores: 16, memoryMb: 65_536 },
  'ml.g5.12xlarge': { accelerators: 4, cpuCores: 48, memoryMb: 196_608 },
  'ml.g5.48xlarge': { accelerators: 8, cpuCores: 192, memoryMb: 786_432 },
  'ml.g6.xlarge': { accelerators: 1, cpuCores: 4, memoryMb: 16_384 },
  'ml.g6.2xlarge': { accelerators: 1, cpuCores: 8, memoryMb: 32_768 },
  'ml.g6.12xlarge': { accelerators: 4, cpuCores: 48, memoryMb: 196_608 },
  'ml.p4d.24xlarge': { accelerators: 8, cpuCores: 96, memoryMb: 1_179_648 },
  'ml.inf2.xlarge': { accelerators: 1, cpuCores: 4, memoryMb: 16_384 },
  'ml.c5.xlarge': { accelerators: 0, cpuCores: 4, memoryMb: 8_192 },
  'ml.c5.2xlarge': { accelerators: 0, cpuCores: 8, memoryMb: 16_384 },
  'ml.m5.xlarge': { accelerators: 0, cpuCores: 4, memoryMb: 16_384 },
  'ml.m5.2xlarge': { accelerators: 0, cpuCores: 8, memoryMb: 32_768 },
};

export type ComponentStatus = 'Creating' | 'InService' | 'Updating' | 'Failed' | 'Deleting';

/** A copy's ComputeResourceRequirements (absent counts: none). */
export interface CopyRequirements {
  accelerators: number;
  cpuCores: number;
  memoryMb: number;
  maxMemoryMb?: number;
}

/** One emulated instance of an IC-hosting endpoint (no process: the copies are the processes). */
interface Host {
  id: string;
  state: 'Pending' | 'InService';
  launchedAtMs: number;
  readyAtMs: number;
  timer: NodeJS.Timeout | undefined;
}

/** The instances of one IC-hosting endpoint. */
export class HostingEndpoint {
  hosts: Host[] = [];
  private launched = 0;
  constructor(
    readonly endpoint: Endpoint,
    readonly config: EndpointConfigRecord,
    readonly capacity: InstanceCapacity,
    private readonly provisionMs: number,
  ) {}

  get managed(): { minInstanceCount: number; maxInstanceCount: number } | undefined {
    const m = this.config.variant.managedInstanceScaling;
    return m && m.status === 'ENABLED' ? m : undefined;
  }

  get current(): number {
    return this.hosts.filter((h) => h.state === 'InService').length;
  }

  /** Whether one more instance may be launched for a copy that finds no room. */
  canLaunch(): boolean {
    const m = this.managed;
    return m !== undefined && this.hosts.length < m.maxInstanceCount;
  }

  launch(): Host {
    this.launched += 1;
    const now = Date.now();
    const host: Host = {
      id: `i-ic${String(this.launched).padStart(4, '0')}${now.toString(16).slice(-8)}`,
      state: 'Pending',
      launchedAtMs: now,
      readyAtMs: now + this.provisionMs,
      timer: undefined,
    };
    host.timer = setTimeout(() => {
      host.timer = undefined;
      host.state = 'InService';
      this.sync();
    }, this.provisionMs);
    this.hosts.push(host);
    this.sync();
    return host;
  }

  remove(host: Host): void {
    if (host.timer) clearTimeout(host.timer);
    this.hosts = this.hosts.filter((h) => h !== host);
    this.sync();
  }

  /** The endpoint's counts and status follow its instances. */
  sync(): void {
    const e = this.endpoint;
    e.desired = this.hosts.length;
    if (e.status === 'Creating' && this.hosts.every((h) => h.state === 'InService')) e.status = 'InService';
    e.lastModifiedTimeMs = Date.now();
    e.emit('change');
  }

  close(): void {
    for (const h of this.hosts) if (h.timer) clearTimeout(h.timer);
    this.hosts = [];
  }
}

/** One inference component: its specification, its desired copies and the fleet of its copies. */
export class InferenceComponent {
  status: ComponentStatus = 'Creating';
  failureReason: string | undefined;
  readonly creationTimeMs = Date.now();
  lastModifiedTimeMs = this.creationTimeMs;
  /** Which instance each live copy occupies. */
  readonly placement = new Map<Instance, Host>();
  readonly metrics: VariantMetrics;
  /** Copies stopped by a scale-in or replacement (not failures). */
  readonly stopping = new Set<Instance>();
  /** A specification update is replacing the copies. */
  rolling = false;
  /** Counts specification updates: copies of different specifications never share a process. */
  specification = 0;

  constructor(
    readonly name: string,
    readonly arn: string,
    readonly hosting: HostingEndpoint,
    /** The copies: an instance of this fleet is one copy (one container process). */
    readonly copies: Endpoint,
    public modelName: string,
    public requirements: CopyRequirements,
    public desired: number,
    store: MetricStore,
  ) {
    this.metrics = new VariantMetrics(
      store,
      hosting.endpoint.name,
      hosting.endpoint.variantName,
      () => this.current,
      name,
    );
  }

  /** Copies serving (CurrentCopyCount). */
  get current(): number {
    return this.copies.serving().length;
  }

  /** Copies started or serving, not being stopped. */
  live(): Instance[] {
    return this.copies.live().filter((i) => !this.stopping.has(i) && i.state !== 'Draining');
  }
}

export interface InferenceComponentOptions {
  region: string;
  accountId: string;
  metrics: MetricStore;
  /** Seconds' worth of ms from a capacity request to an instance taking copies (the replayed provisioning). */
  provisionMs: number;
  /** The fleet of one IC's copies (log group `/aws/sagemaker/InferenceComponents/<name>`). */
  copyFleet: (componentName: string, variantName: string, deployment: VariantDeployment) => Endpoint;
  models: Map<string, ModelRecord>;
  /** The endpoint a name stands for (IC-hosting or not). */
  endpoint: (name: string) => Endpoint | undefined;
  log?: (line: string) => void;
}

/** SageMaker's pattern for inference component names. */
const IC_NAME = /^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/;
const SORT_KEYS = ['Name', 'CreationTime', 'Status'] as const;
const STATUSES = ['InService', 'Creating', 'Updating', 'Failed', 'Deleting'] as const;

const unsupported = (what: string): AwsError =>
  validation(`${what} is not supported by the local SageMaker.`);

/** SageMaker Runtime's validation error: `ValidationError`, HTTP 400 (the control plane says ValidationException). */
const runtimeValidation = (message: string): AwsError => new AwsError('ValidationError', message, 400);

/** What SageMaker answers when no copy of the component can take the request (scale to zero). */
export function noCapacityError(): AwsError {
  return runtimeValidation(
    'Inference Component has no capacity to process this request. ApplicationAutoScaling may be in-progress (if configured) or try to increase the capacity by invoking UpdateInferenceComponentRuntimeConfig API.',
  );
}

/** What SageMaker answers when an endpoint hosting inference components is invoked without naming one. */
export function componentHeaderRequiredError(): AwsError {
  return runtimeValidation(
    'Inference Component Name header is required for endpoints to which you plan to deploy inference components. Please include Inference Component Name header or consider using SageMaker models.',
  );
}

export class InferenceComponents {
  readonly hosting = new Map<string, HostingEndpoint>();
  readonly components = new Map<string, InferenceComponent>();

  constructor(private readonly opts: InferenceComponentOptions) {}

  arn(name: string): string {
    return `arn:aws:sagemaker:${this.opts.region}:${this.opts.accountId}:inference-component/${name.toLowerCase()}`;
  }

  /** CreateEndpoint of an IC-hosting config: its initial instances start provisioning. */
  host(endpoint: Endpoint, config: EndpointConfigRecord): void {
    const capacity = INSTANCE_CAPACITY[config.variant.instanceType];
    if (!capacity) throw unsupported(`Inference components on instance type ${config.variant.instanceType}`);
    endpoint.status = 'Creating';
    const h = new HostingEndpoint(endpoint, config, capacity, this.opts.provisionMs);
    this.hosting.set(endpoint.name, h);
    for (let i = 0; i < config.variant.initialInstanceCount; i++) h.launch();
  }

  /** Instance counts of an IC-hosting endpoint (undefined for any other endpoint). */
  counts(endpointName: string): { desired: number; current: number } | undefined {
    const h = this.hosting.get(endpointName);
    return h ? { desired: h.hosts.length, current: h.current } : undefined;
  }

  /** The component a request names on `endpointName`, or the error SageMaker answers. */
  route(endpointName: string, componentName: string | undefined): InferenceComponent | undefined {
    const hosting = this.hosting.get(endpointName);
    if (!hosting) {
      if (componentName !== undefined)
        throw runtimeValidation(`Endpoint ${endpointName} does not host inference components.`);
      return undefined;
    }
    if (componentName === undefined) throw componentHeaderRequiredError();
    const ic = this.components.get(componentName);
    if (!ic || ic.hosting !== hosting)
      throw runtimeValidation(`Inference component ${componentName} not found on endpoint ${endpointName}.`);
    return ic;
  }

  // ---- placement ------------------------------------------------------------------------------

  private used(host: Host): InstanceCapacity {
    const out = { accelerators: 0, cpuCores: 0, memoryMb: 0 };
    for (const ic of this.components.values()) {
      for (const [copy, h] of ic.placement) {
        if (h !== host || copy.state === 'Terminated' || copy.state === 'Failed') continue;
        out.accelerators += ic.requirements.accelerators;
        out.cpuCores += ic.requirements.cpuCores;
        out.memoryMb += ic.requirements.memoryMb;
      }
    }
    return out;
  }

  private fits(hosting: HostingEndpoint, host: Host, req: CopyRequirements): boolean {
    const u = this.used(host);
    const c = hosting.capacity;
    return (
      u.accelerators + req.accelerators <= c.accelerators &&
      u.cpuCores + req.cpuCores <= c.cpuCores &&
      u.memoryMb + req.memoryMb <= c.memoryMb
    );
  }

  /** Starts one copy where it fits (launching an instance if allowed); undefined when it cannot be placed. */
  private place(ic: InferenceComponent): Instance | undefined {
    const hosting = ic.hosting;
    // Running instances first (a warm copy), then those still provisioning.
    const ordered = [
      ...hosting.hosts.filter((h) => h.state === 'InService'),
      ...hosting.hosts.filter((h) => h.state === 'Pending'),
    ];
    let host = ordered.find((h) => this.fits(hosting, h, ic.requirements));
    if (!host) {
      if (!hosting.canLaunch()) return undefined;
      host = hosting.launch();
      this.opts.log?.(`${hosting.endpoint.name}: instance ${host.id} launched for a copy of ${ic.name}`);
    }
    const delay = Math.max(0, host.readyAtMs - Date.now());
    const share = copyShare({
      hostId: host.id,
      specification: ic.specification,
      accelerators: ic.requirements.accelerators,
      instanceAccelerators: hosting.capacity.accelerators,
      environment: ic.copies.deployment.environment,
    });
    const copy = ic.copies.launchOne(delay, share);
    ic.placement.set(copy, host);
    this.opts.log?.(
      `${ic.name}: copy ${copy.id} on ${host.id} (${delay > 0 ? 'cold' : 'warm'}; ${share ? "shares the instance's device" : 'its own device'})`,
    );
    void copy.ready.then((ok) => {
      if (!ok && !ic.stopping.has(copy) && ic.status !== 'Deleting') {
        ic.failureReason = `The copy ${copy.id} of inference component ${ic.name} did not pass the ping health check. Please check CloudWatch logs for this inference component.`;
        if (ic.status === 'Creating') ic.status = 'Failed';
      }
      this.settle(ic);
    });
    void copy.exited.then(() => {
      ic.placement.delete(copy);
      ic.stopping.delete(copy);
      this.release(hosting);
      // Room freed: copies of any component on this endpoint that were waiting for it start now.
      for (const other of this.components.values()) if (other.hosting === hosting) this.reconcile(other);
    });
    return copy;
  }

  /** Removes instances left without copies, newest first, down to MinInstanceCount. */
  private release(hosting: HostingEndpoint): void {
    const m = hosting.managed;
    if (!m) return;
    for (const host of [...hosting.hosts].reverse()) {
      if (hosting.hosts.length <= m.minInstanceCount) break;
      const occupied = [...this.components.values()].some((ic) => [...ic.placement.values()].includes(host));
      if (!occupied) {
        this.opts.log?.(`${hosting.endpoint.name}: instance ${host.id} has no copies; removed`);
        hosting.remove(host);
      }
    }
  }

  /** Brings the copies to the desired count: places missing ones, stops the newest extra ones. */
  reconcile(ic: InferenceComponent): void {
    if (ic.status === 'Deleting' || ic.status === 'Failed') return;
    // A specification update replaces the copies itself, then reconciles.
    if (ic.rolling) return;
    const live = ic.live();
    if (live.length < ic.desired) {
      for (let n = live.length; n < ic.desired; n++) if (!this.place(ic)) break;
    } else if (live.length > ic.desired) {
      for (const copy of live.slice(ic.desired).reverse()) {
        ic.stopping.add(copy);
        void ic.copies.stopOne(copy);
      }
    }
    this.settle(ic);
  }

  /** Status from the copies: settled when exactly the desired copies serve. */
  private settle(ic: InferenceComponent): void {
    if (ic.status === 'Deleting' || ic.status === 'Failed') return;
    const live = ic.live();
    if (live.length < ic.desired && ic.status === 'InService') ic.status = 'Updating';
    const settled =
      !ic.rolling && ic.current === ic.desired && live.length === ic.desired && ic.stopping.size === 0;
    if (settled && (ic.status === 'Creating' || ic.status === 'Updating')) {
      ic.status = 'InService';
      ic.lastModifiedTimeMs = Date.now();
    }
    ic.copies.emit('change');
  }

  /** A new copy count (UpdateInferenceComponentRuntimeConfig, Application Auto Scaling). */
  setCopies(ic: InferenceComponent, count: number): void {
    if (!Number.isInteger(count) || count < 0)
      throw validation(`CopyCount must be an integer of at least 0 (got ${count}).`);
    if (ic.status === 'Deleting' || ic.status === 'Failed')
      throw validation(`Cannot update inference component "${ic.arn}" in status ${ic.status}.`);
    ic.desired = count;
    ic.failureReason = undefined;
    ic.lastModifiedTimeMs = Date.now();
    if (ic.status === 'InService' && (ic.current !== count || ic.live().length !== count))
      ic.status = 'Updating';
    this.reconcile(ic);
  }

  /**
   * A new specification: copies are replaced one at a time, a new one serving before an old one
   * stops; when the new one finds no room (and no instance may be launched), the old one stops first.
   */
  private async respecify(ic: InferenceComponent, deployment: VariantDeployment): Promise<void> {
    const old = ic.live();
    ic.copies.deployment = deployment;
    ic.rolling = true;
    try {
      for (const copy of old) {
        if (ic.status === 'Deleting') return;
        let fresh = this.place(ic);
        if (!fresh) {
          ic.stopping.add(copy);
          await ic.copies.stopOne(copy);
          fresh = this.place(ic);
          if (!fresh) break;
        }
        if (!(await fresh.ready)) {
          ic.failureReason = `Failed to update inference component: the new copy ${fresh.id} did not pass the ping health check. Please check CloudWatch logs for this inference component.`;
          break;
        }
        if (!ic.stopping.has(copy)) {
          ic.stopping.add(copy);
          await ic.copies.stopOne(copy);
        }
      }
    } finally {
      ic.rolling = false;
    }
    this.reconcile(ic);
  }

  // ---- control plane --------------------------------------------------------------------------

  private byName(name: string): InferenceComponent {
    const ic = this.components.get(name);
    if (!ic) throw validation(`Could not find inference component "${this.arn(name)}".`);
    return ic;
  }

  private readSpecification(raw: Input): { deployment: VariantDeployment; requirements: CopyRequirements } {
    const s = memberReader(raw, validation);
    if (s.has('BaseInferenceComponentName')) throw unsupported('BaseInferenceComponentName (adapters)');
    if (s.has('Container')) throw unsupported('An inference component with its own Container; use ModelName');
    const modelName = s.str('ModelName');
    const model = this.opts.models.get(modelName);
    if (!model)
      throw validation(
        `Could not find model "arn:aws:sagemaker:${this.opts.region}:${this.opts.accountId}:model/${modelName.toLowerCase()}".`,
      );
    const reqRaw = s.obj('ComputeResourceRequirements');
    if (!reqRaw) throw validation('ComputeResourceRequirements is required.');
    const q = memberReader(reqRaw, validation);
    const maxMemory = q.num('MaxMemoryRequiredInMb', true);
    const requirements: CopyRequirements = {
      accelerators: q.num('NumberOfAcceleratorDevicesRequired', true) ?? 0,
      cpuCores: q.num('NumberOfCpuCoresRequired', true) ?? 0,
      memoryMb: q.int('MinMemoryRequiredInMb'),
      ...(maxMemory !== undefined ? { maxMemoryMb: maxMemory } : {}),
    };
    if (requirements.memoryMb < 128) throw validation('MinMemoryRequiredInMb must be at least 128.');
    return {
      requirements,
      deployment: {
        endpointConfigName: '',
        modelName: model.name,
        imageUri: model.image,
        environment: { ...model.environment },
        instanceType: '',
        initialInstanceCount: 0,
        deployedAtMs: Date.now(),
      },
    };
  }

  private checkFits(hosting: HostingEndpoint, req: CopyRequirements): void {
    const c = hosting.capacity;
    if (req.accelerators > c.accelerators || req.cpuCores > c.cpuCores || req.memoryMb > c.memoryMb) {
      throw validation(
        `The compute resource requirements (${req.accelerators} accelerator devices, ${req.cpuCores} CPU cores, ${req.memoryMb} MB memory) exceed what one ${hosting.config.variant.instanceType} instance offers (${c.accelerators}, ${c.cpuCores}, ${c.memoryMb} MB).`,
      );
    }
  }

  private create(input: Input) {
    const r = memberReader(input, validation);
    const name = r.str('InferenceComponentName');
    if (!IC_NAME.test(name) || name.length > 63)
      throw validation(
        `1 validation error detected: Value '${name}' at 'inferenceComponentName' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9]([\\-a-zA-Z0-9]*[a-zA-Z0-9])?$`,
      );
    if (this.components.has(name))
      throw validation(`Cannot create already existing inference component "${this.arn(name)}".`);
    const endpointName = r.str('EndpointName');
    const endpoint = this.opts.endpoint(endpointName);
    if (!endpoint) throw validation(`Could not find endpoint "${endpointName}".`);
    const hosting = this.hosting.get(endpointName);
    if (!hosting)
      throw validation(
        `Endpoint "${endpoint.arn}" does not host inference components: its production variant has a model.`,
      );
    const variantName = r.str('VariantName', true) ?? endpoint.variantName;
    if (variantName !== endpoint.variantName)
      throw validation(`The variant name ${variantName} is not present in the endpoint "${endpointName}".`);
    if (r.has('Specifications')) throw unsupported('Specifications (more than one)');
    const specRaw = r.obj('Specification');
    if (!specRaw) throw validation('Specification is required.');
    const { deployment, requirements } = this.readSpecification(specRaw);
    this.checkFits(hosting, requirements);
    const runtime = r.obj('RuntimeConfig');
    if (!runtime) throw validation('RuntimeConfig is required.');
    const copies = memberReader(runtime, validation).int('CopyCount');
    // As SageMaker words it: a component starts with at least one copy (zero comes from scaling).
    if (copies < 1) throw validation('Inference components copy count an integer larger than 0');
    const fleet = this.opts.copyFleet(name, variantName, {
      ...deployment,
      endpointConfigName: hosting.config.name,
      instanceType: hosting.config.variant.instanceType,
    });
    const ic = new InferenceComponent(
      name,
      this.arn(name),
      hosting,
      fleet,
      deployment.modelName,
      requirements,
      copies,
      this.opts.metrics,
    );
    this.components.set(name, ic);
    this.reconcile(ic);
    return { InferenceComponentArn: ic.arn };
  }

  private describe(input: Input) {
    const r = memberReader(input, validation);
    const ic = this.byName(r.str('InferenceComponentName'));
    const e = ic.hosting.endpoint;
    const req = ic.requirements;
    const d = ic.copies.deployment;
    return {
      InferenceComponentName: ic.name,
      InferenceComponentArn: ic.arn,
      EndpointName: e.name,
      EndpointArn: e.arn,
      VariantName: e.variantName,
      ...(ic.failureReason ? { FailureReason: ic.failureReason } : {}),
      Specification: {
        ModelName: ic.modelName,
        Container: {
          DeployedImage: { SpecifiedImage: d.imageUri, ResolutionTime: epochSeconds(d.deployedAtMs) },
          Environment: { ...d.environment },
        },
        ComputeResourceRequirements: {
          ...(req.cpuCores > 0 ? { NumberOfCpuCoresRequired: req.cpuCores } : {}),
          ...(req.accelerators > 0 ? { NumberOfAcceleratorDevicesRequired: req.accelerators } : {}),
          MinMemoryRequiredInMb: req.memoryMb,
          ...(req.maxMemoryMb !== undefined ? { MaxMemoryRequiredInMb: req.maxMemoryMb } : {}),
        },
      },
      RuntimeConfig: { DesiredCopyCount: ic.desired, CurrentCopyCount: ic.current },
      CreationTime: epochSeconds(ic.creationTimeMs),
      LastModifiedTime: epochSeconds(ic.lastModifiedTimeMs),
      InferenceComponentStatus: ic.status,
    };
  }

  private update(input: Input) {
    const r = memberReader(input, validation);
    const ic = this.byName(r.str('InferenceComponentName'));
    if (r.has('DeploymentConfig')) throw unsupported('DeploymentConfig of an inference component update');
    if (r.has('Specifications')) throw unsupported('Specifications (more than one)');
    if (ic.status !== 'InService')
      throw validation(`Cannot update inference component "${ic.arn}" while it is ${ic.status}.`);
    const specRaw = r.obj('Specification');
    const runtime = r.obj('RuntimeConfig');
    if (!specRaw && !runtime) throw validation('Specification or RuntimeConfig is required.');
    const spec = specRaw ? this.readSpecification(specRaw) : undefined;
    if (spec) this.checkFits(ic.hosting, spec.requirements);
    const copies = runtime ? memberReader(runtime, validation).int('CopyCount') : undefined;
    if (copies !== undefined && copies < 0) throw validation('CopyCount must be at least 0.');
    if (copies !== undefined) this.setCopies(ic, copies);
    if (spec) {
      ic.modelName = spec.deployment.modelName;
      ic.requirements = spec.requirements;
      ic.specification += 1;
      ic.status = 'Updating';
      ic.lastModifiedTimeMs = Date.now();
      void this.respecify(ic, {
        ...spec.deployment,
        endpointConfigName: ic.hosting.config.name,
        instanceType: ic.hosting.config.variant.instanceType,
      });
    }
    return { InferenceComponentArn: ic.arn };
  }

  private updateRuntimeConfig(input: Input) {
    const r = memberReader(input, validation);
    const ic = this.byName(r.str('InferenceComponentName'));
    const desired = r.obj('DesiredRuntimeConfig');
    if (!desired) throw validation('DesiredRuntimeConfig is required.');
    this.setCopies(ic, memberReader(desired, validation).int('CopyCount'));
    return { InferenceComponentArn: ic.arn };
  }

  private delete(input: Input) {
    const r = memberReader(input, validation);
    const ic = this.byName(r.str('InferenceComponentName'));
    if (ic.status !== 'Deleting') {
      ic.status = 'Deleting';
      ic.lastModifiedTimeMs = Date.now();
      void ic.copies.delete().then(() => {
        this.components.delete(ic.name);
        ic.placement.clear();
        this.release(ic.hosting);
      });
    }
    return {};
  }

  private list(input: Input) {
    const r = memberReader(input, validation);
    const sortBy = r.oneOf('SortBy', SORT_KEYS, true) ?? 'CreationTime';
    const order = r.oneOf('SortOrder', ['Ascending', 'Descending'] as const, true) ?? 'Descending';
    const contains = r.str('NameContains', true);
    const status = r.oneOf('StatusEquals', STATUSES, true);
    const endpointName = r.str('EndpointNameEquals', true);
    const variantName = r.str('VariantNameEquals', true);
    const max = r.int('MaxResults', true) ?? 10;
    if (max < 1 || max > 100) throw validation('MaxResults must be between 1 and 100.');
    const key = (ic: InferenceComponent): string | number =>
      sortBy === 'Name' ? ic.name : sortBy === 'Status' ? ic.status : ic.creationTimeMs;
    const all = [...this.components.values()]
      .filter(
        (ic) =>
          (contains === undefined || ic.name.includes(contains)) &&
          (status === undefined || ic.status === status) &&
          (endpointName === undefined || ic.hosting.endpoint.name === endpointName) &&
          (variantName === undefined || ic.hosting.endpoint.variantName === variantName),
      )
      .sort((a, b) => {
        const c = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
        return order === 'Ascending' ? c : -c;
      });
    const scope = JSON.stringify(['ics', sortBy, order, contains, status, endpointName, variantName]);
    const { items, nextToken } = page(
      all,
      decodeToken(r.str('NextToken', true), scope, validation),
      max,
      scope,
    );
    return {
      InferenceComponents: items.map((ic) => ({
        CreationTime: epochSeconds(ic.creationTimeMs),
        InferenceComponentArn: ic.arn,
        InferenceComponentName: ic.name,
        EndpointArn: ic.hosting.endpoint.arn,
        EndpointName: ic.hosting.endpoint.name,
        VariantName: ic.hosting.endpoint.variantName,
        InferenceComponentStatus: ic.status,
        LastModifiedTime: epochSeconds(ic.lastModifiedTimeMs),
      })),
      ...(nextToken ? { NextToken: nextToken } : {}),
    };
  }

  readonly operations: OperationHandler = async (operation, input) => {
    switch (operation) {
      case 'CreateInferenceComponent':
        return this.create(input);
      case 'DescribeInferenceComponent':
        return this.describe(input);
      case 'UpdateInferenceComponent':
        return this.update(input);
      case 'UpdateInferenceComponentRuntimeConfig':
        return this.updateRuntimeConfig(input);
      case 'DeleteInferenceComponent':
        return this.delete(input);
      case 'ListInferenceComponents':
        return this.list(input);
      default:
        throw unknownOperation(operation);
    }
  };

  /** `inference-component/<name>` -> its copies, for Application Auto Scaling (CapacityTarget). */
  capacityOf(resourceId: string): InferenceComponent | undefined {
    const m = /^inference-component\/([^/]+)$/.exec(resourceId);
    return m ? this.components.get(m[1] as string) : undefined;
  }

  /** Stops every copy of every component (waits for the processes) and every instance timer. */
  async close(timeoutMs: number): Promise<void> {
    await Promise.all([...this.components.values()].map((ic) => ic.copies.close(timeoutMs)));
    for (const h of this.hosting.values()) h.close();
  }
}

/** The CapacityTarget of both scalable dimensions: variants (`variants`) and inference components. */
export function combinedCapacityTarget(variants: CapacityTarget, ics: InferenceComponents): CapacityTarget {
  return {
    describe(resourceId) {
      if (!resourceId.startsWith('inference-component/')) return variants.describe(resourceId);
      const ic = ics.capacityOf(resourceId);
      return ic ? { desired: ic.desired, current: ic.current, status: ic.status } : undefined;
    },
    async setDesired(resourceId, desired) {
      if (!resourceId.startsWith('inference-component/')) return variants.setDesired(resourceId, desired);
      const ic = ics.capacityOf(resourceId);
      if (!ic) throw validation(`Could not find inference component for resource ${resourceId}.`);
      ics.setCopies(ic, desired);
    },
  };
}
