/** `--device`, `--time-scale`, `--startup`: the emulated-device options of `local up` and `rehearse`. */
import { number, type OptionTable, text } from './spec.js';

/** The device options with the defaults of the command that offers them. */
export const deviceOptions = (defaults: { device: string; timeScale: string }) =>
  ({
    device: text(
      'device',
      '<qmax-artifact|device-profile|cpu>',
      'what each instance emulates: the accelerator measured in a qmax artifact (lanes and service times derived from its ladder; each instance its own device, real speech replayed from a cache), a device profile file (e.g. a streaming device from infra/container/profiles), or cpu (eSpeak-NG synthesis on the host, instances share the cores)',
      { defaultText: defaults.device, action: false },
    ),
    timeScale: number(
      'time-scale',
      '<f>',
      'positive',
      'multiply every device and start-up time by f (0.1 = ten times faster; recorded in the fingerprint)',
      { defaultText: defaults.timeScale, action: false },
    ),
    startup: text(
      'startup',
      '<ttotal-artifact>',
      'replay the measured start-up of every new instance (provisioning, container stages, ready -> in service), time-scaled; replaces the provisioning delay',
      { action: false },
    ),
  }) as const satisfies OptionTable;
