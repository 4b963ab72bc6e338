/**
 * qmax of an inference-component model: the component's copy count is what the freeze pins
 * (`--copies`, default 1), and the ladder's in-flight requests are shared among the copies
 * (least outstanding requests), so Q_max per copy = Q_max / copies. Copies that reserve no
 * accelerator (NumberOfAcceleratorDevicesRequired unset) share the device of the instance they
 * are packed on, so their Q_max per copy is that device's Q_max divided among them; a copy that
 * reserves accelerators has devices of its own. goodput pins the copies the same way and records
 * lambda_max per copy = lambda_max / copies.
 */
import { componentOf } from '../load/transport/transports.js';
import type { GoodputArtifact, QmaxArtifact } from '../model/artifacts.js';
import type { ModelConfig } from '../model/config.js';
import { opt, usage } from '../model/errors.js';

export interface PinnedComponent {
  component: string;
  copies: number;
  copiesPerInstance: number;
  /** Accelerator devices each copy reserves (config `accelerators`; 0: it shares the instance's). */
  accelerators: number;
}

/** The component a qmax pins and at how many copies; null for a variant (`--copies` refused there). */
export function pinnedComponent(input: {
  endpoint: string;
  model: ModelConfig;
  copies?: number;
  target?: string;
}): PinnedComponent | null {
  const component = input.target ? null : componentOf(input);
  const ic = input.model.inference_component;
  if (!component || !ic) {
    if (input.copies !== undefined)
      throw usage`${opt('copies', String(input.copies))} pins an inference component's copies: the model is not measured as one (kind 'inference-component', through its endpoint).`;
    return null;
  }
  const copies = input.copies ?? 1;
  if (copies > ic.max_copies)
    throw usage`${opt('copies', String(copies))}: more than the component's max_copies ${ic.max_copies}.`;
  return { component, copies, copiesPerInstance: ic.copies_per_instance, accelerators: ic.accelerators ?? 0 };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The packing a pinned run measured, as the qmax and goodput artifacts record it. */
export interface IcPackingRecord {
  component: string;
  copies: number;
  copies_per_instance: number;
  instances: number;
  copies_sharing_device: number;
  sharing: string;
}

/**
 * The packing measured: instances the copies occupy, the copies one device serves, and how they
 * share it in words, for the figure (`Q_max`, `lambda_max`) that is divided among the copies.
 */
export function icPackingRecord(ic: PinnedComponent, figure: string): IcPackingRecord {
  const instances = Math.ceil(ic.copies / ic.copiesPerInstance);
  const own = ic.accelerators >= 1;
  // Placement fills an instance first: its copies are the ones that share its device.
  const perDevice = own ? 1 : Math.min(ic.copies, ic.copiesPerInstance);
  let sharing: string;
  if (ic.copies === 1) sharing = 'one copy: the instance accelerator is its own';
  else if (own)
    sharing = `${ic.copies} copies on ${instances} instance(s), each reserving ${ic.accelerators} accelerator device(s): each copy has devices of its own, so packed copies do not contend for one`;
  else
    sharing = `${ic.copies} copies on ${instances} instance(s) reserving no accelerator: up to ${perDevice} copies share one instance's device (one queue), so ${figure} per copy is that device's ${figure} divided among them`;
  return {
    component: ic.component,
    copies: ic.copies,
    copies_per_instance: ic.copiesPerInstance,
    instances,
    copies_sharing_device: perDevice,
    sharing,
  };
}

/** The artifact's record of the packing measured. */
export function icQmaxRecord(
  ic: PinnedComponent,
  qMax: number,
): NonNullable<QmaxArtifact['inference_component']> {
  const { sharing, ...packing } = icPackingRecord(ic, 'Q_max');
  return { ...packing, q_max_per_copy: round2(qMax / ic.copies), sharing };
}

/**
 * The goodput artifact's record: lambda_max per copy = lambda_max / copies (computed from the
 * measured lambda_max; null while undecided).
 */
export function icGoodputRecord(
  ic: PinnedComponent,
  lambdaMax: number | null,
): NonNullable<GoodputArtifact['inference_component']> {
  const { sharing, ...packing } = icPackingRecord(ic, 'lambda_max');
  return {
    ...packing,
    lambda_max_per_copy_rps: lambdaMax === null ? null : round2(lambdaMax / ic.copies),
    sharing,
  };
}
