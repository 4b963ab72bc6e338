/** What `scalegate gate` reports (its `--json`): the plan, the image being deployed, every check. */
import type { GateCheck } from './gate.js';

export interface GateReport {
  kind: 'gate';
  model_name: string;
  plan_file: string;
  plan_run_id: string | null;
  image_source: 'container_dir' | 'image_uri';
  image_digest: string;
  instance_type: string;
  region: string;
  passed: boolean;
  checks: GateCheck[];
  /**
   * Why the proofs' attestations were not verified: `requested` (`--offline`, a development run),
   * `local` (the local SageMaker, where nothing is attested); null when the `attested` check judged them.
   */
  offline: 'requested' | 'local' | null;
}
