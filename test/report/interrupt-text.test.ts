/** What an interrupted or lost freeze says about the endpoint: never more than the restore report holds. */
import { describe, expect, it } from 'vitest';
import { renderFreezeLost, renderInterruption } from '../../src/report/interrupt-text.js';

const retry = 'run `scalegate thaw` to finish restoring';

describe('the interruption message', () => {
  it('says "nothing had been changed" only when the freeze had not begun or stopped before any change', () => {
    expect(renderInterruption('qmax', 'SIGINT', null, retry)).toBe(
      'qmax interrupted by SIGINT; nothing on the endpoint had been changed (the freeze had not begun)',
    );
    expect(
      renderInterruption(
        'qmax',
        'SIGTERM',
        { actions: ["run r1's freeze claim removed from the endpoint"], errors: [], nothingChanged: true },
        retry,
      ),
    ).toBe(
      "qmax interrupted by SIGTERM; nothing on the endpoint had been changed (run r1's freeze claim removed from the endpoint)",
    );
  });

  it('lists what was restored, and on a partial restore both what was done and what failed, with who finishes it', () => {
    expect(
      renderInterruption(
        'ttotal',
        'SIGTERM',
        {
          actions: [
            'desired instance count 1 -> 2',
            'suspension flags restored (in=false, out=false, scheduled=false)',
          ],
          errors: [],
        },
        retry,
      ),
    ).toBe(
      'ttotal interrupted by SIGTERM; the endpoint was restored (desired instance count 1 -> 2; suspension flags restored (in=false, out=false, scheduled=false))',
    );
    const partial = renderInterruption(
      'qmax',
      'SIGTERM',
      {
        actions: ['suspension flags restored (in=false, out=false, scheduled=false)'],
        errors: [
          'restoring the desired instance count (2): the endpoint was still Updating ...; it is left at 1',
        ],
      },
      retry,
    );
    expect(partial).toMatch(
      /restore INCOMPLETE: done: suspension flags restored .*; FAILED: restoring the desired instance count \(2\).*left at 1; run `scalegate thaw`/,
    );
    expect(partial).not.toMatch(/the endpoint was restored/);
  });

  it('a lost freeze says the measurement is invalid, nothing was written, and what the restore did', () => {
    expect(
      renderFreezeLost('scaling resumed', { actions: ['desired instance count already 2'], errors: [] }),
    ).toBe(
      'the freeze was lost during the measurement (scaling resumed): the measurement is invalid and no artifact was written; the endpoint was restored (desired instance count already 2)',
    );
  });
});
