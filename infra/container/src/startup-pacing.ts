// Start-up pacing of an emulated instance (DEVICE_STARTUP): each stage marker is printed no
// earlier than the elapsed_s a real instance printed it at (times the time scale), so a scale-out
// on the local SageMaker has the measured shape (weights loading, warm-up) rather than this
// container's own sub-second start. A stage that really takes longer here is not held back further.
import type { DeviceConfig, PacedStage } from './device-config.js';

export type StagePacer = (stage: PacedStage) => Promise<void>;

export function stagePacer(device: DeviceConfig | undefined): StagePacer {
  const startup = device?.startup;
  if (!device || !startup) return () => Promise.resolve();
  return async (stage) => {
    // performance.now() counts from the start of this process, as elapsed_s does. Timers may fire
    // a fraction of a millisecond early: wait again until the moment has really passed.
    const due = startup[`${stage}_s`] * device.timeScale * 1000;
    for (let wait = due - performance.now(); wait > 0; wait = due - performance.now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
    }
  };
}
