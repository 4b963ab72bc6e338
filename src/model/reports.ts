/**
 * What the commands that write no artifact file return (`CommandResult.artifact`, printed by
 * `--json`), and the rehearsal's summary: the shapes src/report renders.
 */
import type {
  DriftArtifact,
  PlanArtifact,
  QmaxArtifact,
  TtotalArtifact,
  ValidateArtifact,
} from './artifacts.js';
import type { ThawJournal } from './journal.js';

export interface ThawReport {
  kind: 'thaw';
  endpoint: string;
  variant: string;
  journal_file: string | null;
  journal: ThawJournal | null;
  actions: string[];
  errors: string[];
  journal_deleted: boolean;
  /** A dry run: read only, the actions say what a thaw would do. */
  dry_run?: boolean;
}

export interface DeployReport {
  kind: 'deploy' | 'destroy';
  model_name: string;
  calibration: boolean;
  /** The plan the calibration endpoint gets (`--with-plan`); null: none. */
  with_plan: string | null;
  dry_run: boolean;
  stacks: string[];
  invocations: string[];
  completed: number;
  failed: string | null;
  left_in_place: string[];
}

export interface RehearsalStep {
  step: 'local-sagemaker' | 'drift' | 'qmax' | 'ttotal' | 'plan' | 'apply' | 'validate';
  seconds: number;
  exitCode: number;
  files: string[];
}

export interface RehearsalResult {
  model: string;
  endpoint: string;
  outDir: string;
  steps: RehearsalStep[];
  drift: DriftArtifact | null;
  qmax: QmaxArtifact | null;
  ttotal: TtotalArtifact | null;
  plan: PlanArtifact | null;
  validate: ValidateArtifact | null;
  previews: { comment: string; chart: string } | null;
  failed: { step: RehearsalStep['step']; reason: string } | null;
  totalSeconds: number;
  /** Pids of every container process the local SageMaker started (all stopped on return). */
  containerPids: number[];
  /** What each instance emulated (`--device`, `--time-scale`, `--startup`). */
  device: string;
}
