/** What a written plan says that its own measurements do not give (the gate's re-derivation). Pure. */
import type { Deployable, Fingerprint, PlanArtifact } from '../model/index.js';

const shown = (value: unknown): string =>
  value === null ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** Every value of the plan as written that its measurements do not give, `name written vs derived`. */
export function planDifferences(written: PlanArtifact, derived: PlanArtifact): string[] {
  const out: string[] = [];
  const note = (name: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b))
      out.push(`${name} ${shown(a)} (plan) vs ${shown(b)} (re-derived)`);
  };
  // Both sides' keys: a scheduled action or step scale-out only one of them has is a difference.
  const keys = new Set([...Object.keys(derived.deployable), ...Object.keys(written.deployable)]);
  for (const key of [...keys] as (keyof Deployable)[]) {
    note(key, written.deployable[key], derived.deployable[key]);
  }
  note('verdict', written.verdict, derived.verdict);
  note('region_source', written.region_source, derived.region_source);
  note('measured.t_total_origin', written.measured.t_total_origin, derived.measured.t_total_origin);
  note('warn_count', written.warn_count, derived.warn_count);
  note('inference_component', written.inference_component ?? null, derived.inference_component ?? null);
  for (const key of [
    'instance_type',
    'image_digest',
    'container_env',
    'region',
    'request',
    'inference_component',
  ] as (keyof Fingerprint)[]) {
    note(`fingerprint.${key}`, written.fingerprint[key], derived.fingerprint[key]);
  }
  return out;
}
