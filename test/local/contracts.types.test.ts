/**
 * The local SageMaker imports nothing of the product, so it keeps deliberate copies of a few of
 * its types and names (src/local/contracts.ts). These checks tie each copy to the product's: a
 * change to one side that the other does not follow fails the type check (npx tsc) and this test.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type {
  DeviceProfile as ProductDeviceProfile,
  StartupProfile as ProductStartupProfile,
} from '../../src/analysis/device-profile.js';
import { endpointUsageQuotaName } from '../../src/aws/quotas.js';
import type { DeviceProfile, EmulatedDevice, StartupProfile } from '../../src/local/contracts.js';
import { endpointQuotaName } from '../../src/local/quotas.js';

describe("the emulator's copies of the product's types", () => {
  it('DeviceProfile and StartupProfile are the same shapes on both sides', () => {
    expectTypeOf<DeviceProfile>().toEqualTypeOf<ProductDeviceProfile>();
    expectTypeOf<StartupProfile>().toEqualTypeOf<ProductStartupProfile>();
    // What the product derives is what an emulated instance runs.
    expectTypeOf<ProductDeviceProfile | null>().toEqualTypeOf<EmulatedDevice['profile']>();
    expectTypeOf<ProductStartupProfile | null>().toEqualTypeOf<EmulatedDevice['startup']>();
  });

  it('names the endpoint-usage quota as the product looks it up', () => {
    for (const type of ['ml.g5.xlarge', 'ml.g6e.2xlarge', 'ml.c5.large']) {
      expect(endpointQuotaName(type)).toBe(endpointUsageQuotaName(type));
    }
  });
});
