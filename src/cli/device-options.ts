/** `--device`, `--time-scale`, `--startup`: the emulated-device options of `local up` and `rehearse`. */
import { Option } from 'commander';
import { positiveNumber } from './shared.js';

export interface DeviceFlags {
  device?: string;
  timeScale?: number;
  startup?: string;
}

export const deviceOption = (deviceDefault: string): Option =>
  new Option(
    '--device <qmax-artifact|cpu>',
    'what each instance emulates: the accelerator measured in a qmax artifact (lanes and service times ' +
      'derived from its ladder; each instance its own device, real speech replayed from a cache), or cpu ' +
      `(eSpeak-NG synthesis on the host, instances share the cores) (default: ${deviceDefault})`,
  );

export const timeScaleOption = (defaultText: string): Option =>
  new Option(
    '--time-scale <f>',
    `multiply every device and start-up time by f (0.1 = ten times faster; recorded in the fingerprint) (default: ${defaultText})`,
  ).argParser(positiveNumber('--time-scale'));

export const startupOption = (): Option =>
  new Option(
    '--startup <ttotal-artifact>',
    'replay the measured start-up of every new instance (provisioning, container stages, ready -> in service), ' +
      'time-scaled; replaces the provisioning delay',
  );
