import { describe, expect, it } from 'vitest';
import {
  type EvaluationSpec,
  evaluateAlarm,
  type MissingData,
} from '../../src/autoscaling/alarm-evaluation.js';

const P = 60_000;
const NOW = 1_800_000_000_000 + 5_000; // 5 s into a period: the newest complete period ends at 1_800_000_000_000
const END = 1_800_000_000_000;

const spec = (treatMissingData: MissingData, m = 3, n = 3): EvaluationSpec => ({
  periodS: 60,
  evaluationPeriods: n,
  datapointsToAlarm: m,
  threshold: 10,
  comparison: 'GreaterThanThreshold',
  treatMissingData,
});

/** Builds datapoints from a row of the AWS table, oldest first: '0' good, 'X' breaching, '-' missing. */
function row(cells: string): { timestampMs: number; value: number }[] {
  const list = cells.split(' ');
  return list.flatMap((c, i) =>
    c === '-' ? [] : [{ timestampMs: END - (list.length - i) * P, value: c === 'X' ? 20 : 0 }],
  );
}

describe('alarm evaluation reproduces the AWS missing-data table (3 of 3, evaluation range 5)', () => {
  const modes: MissingData[] = ['missing', 'ignore', 'breaching', 'notBreaching'];
  const table: [string, (string | undefined)[]][] = [
    ['0 - X - X', ['OK', 'OK', 'OK', 'OK']],
    ['0 - - - -', ['OK', 'OK', 'OK', 'OK']],
    ['- - - - -', ['INSUFFICIENT_DATA', undefined, 'ALARM', 'OK']],
    ['0 X X - X', ['ALARM', 'ALARM', 'ALARM', 'ALARM']],
    ['- - X - -', ['ALARM', undefined, 'ALARM', 'OK']],
  ];
  for (const [cells, expected] of table) {
    modes.forEach((mode, i) => {
      it(`row "${cells}" with ${mode} -> ${expected[i] ?? 'state kept'} (prevents drifting from the documented semantics)`, () => {
        expect(evaluateAlarm(spec(mode), row(cells), NOW).state).toBe(expected[i]);
      });
    });
  }
});

describe('alarm evaluation, M out of N', () => {
  it('2 of 3 alarms on two breaching datapoints and not on one (prevents treating M of N as N of N)', () => {
    expect(evaluateAlarm(spec('missing', 2, 3), row('X 0 X'), NOW).state).toBe('ALARM');
    expect(evaluateAlarm(spec('missing', 2, 3), row('X 0 0'), NOW).state).toBe('OK');
  });

  it('only the newest N real datapoints count (prevents old breaches keeping an alarm up)', () => {
    expect(evaluateAlarm(spec('missing', 3, 3), row('X X X 0 0'), NOW).state).toBe('OK');
  });

  it('a datapoint in the period still running is not evaluated (prevents evaluating partial periods)', () => {
    const partial = [{ timestampMs: END, value: 99 }];
    expect(evaluateAlarm(spec('missing', 1, 1), partial, NOW).state).toBe('INSUFFICIENT_DATA');
  });

  it('the state reason names the datapoints and the threshold as CloudWatch does (prevents opaque reasons)', () => {
    const ev = evaluateAlarm(spec('missing', 1, 1), row('X'), NOW);
    expect(ev.reason).toMatch(
      /^Threshold Crossed: 1 out of the last 1 datapoints \[20\.0 \(.+\)\] was greater than the threshold \(10\.0\)/,
    );
  });
});
