// The qmax artifact's record of an inference component's packing: how many copies one device
// serves, from the sharing rule (a copy that reserves accelerators has devices of its own; copies
// reserving none share the device of the instance they are packed on).
import { describe, expect, it } from 'vitest';
import { icQmaxRecord } from '../../src/commands/qmax-component.js';

const pinned = (copies: number, accelerators: number) => ({
  component: 'c',
  copies,
  copiesPerInstance: 2,
  accelerators,
});

describe('icQmaxRecord', () => {
  it('copies reserving no accelerator share one device per instance, so an artifact never claims devices they did not have', () => {
    expect(icQmaxRecord(pinned(2, 0), 8)).toMatchObject({
      instances: 1,
      q_max_per_copy: 4,
      copies_sharing_device: 2,
    });
    expect(icQmaxRecord(pinned(2, 0), 8).sharing).toMatch(/up to 2 copies share one instance's device/);
    // 3 copies at 2 per instance: the fullest instance's 2 share a device.
    expect(icQmaxRecord(pinned(3, 0), 9).copies_sharing_device).toBe(2);
  });

  it('a copy reserving accelerators has devices of its own: one copy per device, said in words', () => {
    const r = icQmaxRecord(pinned(2, 1), 8);
    expect(r.copies_sharing_device).toBe(1);
    expect(r.sharing).toMatch(/each copy has devices of its own/);
    expect(icQmaxRecord(pinned(1, 0), 4)).toMatchObject({ copies_sharing_device: 1 });
  });
});
