/** The terminal report of `scalegate local apply`: every call made, MAX_QUEUE_DEPTH, what still differs. */
import type { ComparisonRow } from '../model/artifacts.js';
import { describeRow } from '../plan/policy-diff.js';

export interface LocalApplyReport {
  modelName: string;
  endpoint: string;
  planFile: string;
  applied: {
    scalableTargetArn: string | null;
    scaleOutPolicyArn: string;
    scaleInPolicyArn: string;
    stepScaleOutPolicyArn?: string | null;
    alarmNames: string[];
    scheduledActions?: { put: string[]; deleted: string[] };
  };
  queueDepth: {
    expected: number;
    before: string | null;
    action: 'unchanged' | 'set' | 'rolled-back';
    modelName: string | null;
    endpointConfigName: string | null;
    failureReason: string | null;
  };
  warnings: string[];
  /** Rows that still differ from the plan (tolerated mismatches excluded). */
  failed: ComparisonRow[];
  /** Rows compared in the read-back. */
  compared: number;
}

export function renderLocalApplyReport(r: LocalApplyReport): string {
  const a = r.applied;
  const q = r.queueDepth;
  const lines = [
    `scalegate local apply ${r.modelName}: ${r.failed.length === 0 ? 'applied' : `applied with ${r.failed.length} parameter(s) still differing`} (endpoint ${r.endpoint}, plan ${r.planFile})`,
    `  RegisterScalableTarget ${a.scalableTargetArn ?? '(no ARN returned)'}`,
    `  PutScalingPolicy scale-out ${a.scaleOutPolicyArn}`,
    `  PutScalingPolicy scale-in  ${a.scaleInPolicyArn}`,
    ...(a.stepScaleOutPolicyArn ? [`  PutScalingPolicy step scale-out ${a.stepScaleOutPolicyArn}`] : []),
    `  PutMetricAlarm ${a.alarmNames.join(', ')}`,
    ...(a.scheduledActions?.put.length ? [`  PutScheduledAction ${a.scheduledActions.put.join(', ')}`] : []),
    ...(a.scheduledActions?.deleted.length
      ? [`  DeleteScheduledAction ${a.scheduledActions.deleted.join(', ')} (no longer in the plan)`]
      : []),
    `  MAX_QUEUE_DEPTH ${
      q.action === 'unchanged'
        ? `already ${q.expected}`
        : q.action === 'set'
          ? `${q.before ?? 'unset'} -> ${q.expected} (CreateModel ${q.modelName}, CreateEndpointConfig ${q.endpointConfigName}, UpdateEndpoint blue/green: instances replaced)`
          : `NOT SET (still ${q.before ?? 'unset'}): UpdateEndpoint to ${q.endpointConfigName} rolled back: ${q.failureReason}`
    }`,
    ...r.warnings.map((w) => `  WARNING: ${w}`),
    ...r.failed.map((row) => `  MISMATCH ${describeRow(row)}`),
  ];
  if (r.failed.length === 0)
    lines.push(`  read back: every parameter equals the plan (${r.compared} compared)`);
  return lines.join('\n');
}
