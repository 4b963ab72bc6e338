/**
 * The data plane of the simulated variant, and the simulation's clock: identical instances, each
 * the measured device (lanes fed from one FIFO, log-normal service times, first audio byte a share
 * of the way through, admission limited to queueMaxDepth in flight, 503 beyond), behind
 * least-outstanding-requests routing (ties round robin), launched with the measured start-up and
 * drained on scale-in (the newest first), as the local SageMaker runs its fleet. A request's
 * time to first audio is known when it is admitted (FIFO lanes), so each arrival is one step.
 */
import { lognormalSampler } from '../stats/in-flight-sim.js';
import { mulberry32 } from '../stats/prng.js';
import { arrivalStream, rateRows } from './arrivals.js';
import { type SimCapacity, SimControlPlane } from './control.js';
import { CompletionHeap } from './heap.js';
import { SimMetrics } from './metrics.js';
import { LeastOutstanding } from './routing.js';
import type { FleetSimInput, FleetSimResult, SimDevice } from './types.js';
import { WindowRecorder } from './windows.js';

const BOOTING = 0;
const SERVING = 1;
const DRAINING = 2;
const GONE = 3;

interface Instance {
  state: number;
  readyAtS: number;
  billedFromS: number;
  goneAtS: number;
  inFlight: number;
  laneFree: Float64Array;
}

/** Log-normal service times with the device's mean and shape, ms. */
const serviceSampler = (device: SimDevice, seed: number): (() => number) =>
  lognormalSampler(mulberry32(seed), device.serviceMeanMs, device.serviceSigma);

export function simulateFleet(input: FleetSimInput): FleetSimResult {
  const { device, startup } = input;
  if (!(device.lanes >= 1 && device.serviceMeanMs > 0 && device.queueMaxDepth >= 1))
    throw new RangeError('the simulated device needs lanes >= 1, serviceMeanMs > 0 and queueMaxDepth >= 1');
  const durationS = input.arrivals.durationS;
  const windowS = input.windowS ?? 10;
  const intervalS = input.evaluationIntervalS ?? 10;
  const startEpochMs = input.startEpochMs ?? 0;
  const startupS = startup.provisionS + startup.readyS + startup.inServiceAfterReadyS;
  const overheadMs = device.overheadMs ?? 0;
  const fa = device.firstAudioFraction;
  const draw = serviceSampler(device, (input.seed ^ 0x9e3779b9) >>> 0);
  const nextArrival = arrivalStream(input.arrivals, input.seed);

  const instances: Instance[] = [];
  /** In-service instance indices, oldest first. */
  const serving: number[] = [];
  const booting: number[] = [];
  let desired = 0;
  let updateBooting = 0;
  let updateDraining = 0;
  const routing = new LeastOutstanding(device.queueMaxDepth);

  const busiest = (): number => {
    let b = 0;
    for (const inst of instances) if (inst.state !== GONE && inst.inFlight > b) b = inst.inFlight;
    return b;
  };
  const metrics = new SimMetrics(startEpochMs, busiest);
  if (input.priorConcurrency) metrics.setPrior(input.priorConcurrency);
  const heap = new CompletionHeap();
  const windows = new WindowRecorder(windowS, durationS, input.sloMs, input.maxOverflowProbability ?? 0.05);

  const launch = (tS: number, instant: boolean): void => {
    const inst: Instance = {
      state: instant ? SERVING : BOOTING,
      readyAtS: instant ? tS : tS + startupS,
      billedFromS: tS,
      goneAtS: Number.POSITIVE_INFINITY,
      inFlight: 0,
      laneFree: new Float64Array(device.lanes).fill(tS),
    };
    instances.push(inst);
    if (instant) {
      serving.push(instances.length - 1);
      routing.add(instances.length - 1, 0);
    } else booting.push(instances.length - 1);
  };
  const retire = (index: number, tS: number): void => {
    const inst = instances[index] as Instance;
    inst.state = GONE;
    inst.goneAtS = tS;
  };
  /** Newest first leave the routing and drain; gone once their last request completes. */
  const shrinkTo = (count: number, tS: number): number => {
    let draining = 0;
    while (serving.length > count) {
      const index = serving.pop() as number;
      routing.remove(index);
      const inst = instances[index] as Instance;
      if (inst.inFlight === 0) retire(index, tS);
      else {
        inst.state = DRAINING;
        draining += 1;
      }
    }
    return draining;
  };

  const capacity: SimCapacity = {
    desired: () => desired,
    current: () => serving.length,
    setDesired(count, tS) {
      if (updateBooting > 0 || updateDraining > 0 || count < 1) return false;
      desired = count;
      if (count > serving.length) {
        const add = count - serving.length;
        for (let k = 0; k < add; k++) launch(tS, false);
        updateBooting = add;
      } else if (count < serving.length) {
        updateDraining = shrinkTo(count, tS);
      }
      return true;
    },
  };

  const fleet = input.fleet;
  const metric = fleet.kind === 'policy' ? fleet.policy.metric : 'ConcurrentRequestsPerModel';
  const control =
    fleet.kind === 'policy'
      ? new SimControlPlane(
          fleet.policy,
          (_statistic, periodS, startMs, endMs) => metrics.query(metric, periodS, startMs, endMs),
          capacity,
          startEpochMs,
          (input.metricDelayS?.[fleet.policy.metric] ?? 0) * 1000,
        )
      : null;

  // The perfect fleet: ceil(rate / ratePerInstance) in service at every moment, no start-up.
  const perfectRows = fleet.kind === 'perfect' ? rateRows(input.arrivals) : [];
  const need = (rps: number): number =>
    fleet.kind === 'perfect' ? Math.max(1, Math.ceil(rps / fleet.ratePerInstance - 1e-9)) : 0;
  let nextPerfectRow = 0;

  let initial =
    input.initialInstances ??
    (fleet.kind === 'policy' ? fleet.policy.minInstances : need(perfectRows[0]?.rps ?? 0));
  if (control) {
    const range = control.rangeAtStart();
    initial = Math.min(range.max, Math.max(range.min, initial));
  }
  for (let k = 0; k < initial; k++) launch(0, true);
  desired = initial;

  const timeline: FleetSimResult['timeline'] = [];
  const recordTimeline = input.timeline !== false;
  let nextTick = intervalS;
  let nextSecond = 1;
  let peak = initial;

  const complete = (tS: number): void => {
    const index = heap.pop();
    const inst = instances[index] as Instance;
    metrics.advance(tS);
    inst.inFlight -= 1;
    if (inst.state === SERVING) routing.shift(index, -1);
    if (inst.state === DRAINING && inst.inFlight === 0) {
      retire(index, tS);
      if (updateDraining > 0) updateDraining -= 1;
    }
  };
  const ready = (tS: number): void => {
    const index = booting.shift() as number;
    const inst = instances[index] as Instance;
    inst.state = SERVING;
    inst.laneFree.fill(tS);
    serving.push(index);
    routing.add(index, 0);
    updateBooting -= 1;
  };
  const perfectStep = (tS: number): void => {
    const row = perfectRows[nextPerfectRow++] as { rps: number };
    const goal = need(row.rps);
    desired = goal;
    if (goal > serving.length) {
      const add = goal - serving.length;
      for (let k = 0; k < add; k++) launch(tS, true);
    } else if (goal < serving.length) {
      shrinkTo(goal, tS); // the perfect fleet is never "updating": no updateDraining
    }
  };

  let tA = nextArrival();
  for (;;) {
    const tC = heap.peekTime();
    const tR =
      booting.length > 0 ? (instances[booting[0] as number] as Instance).readyAtS : Number.POSITIVE_INFINITY;
    const tP =
      nextPerfectRow < perfectRows.length
        ? (perfectRows[nextPerfectRow] as { t_s: number }).t_s
        : Number.POSITIVE_INFINITY;
    const tSys = Math.min(tC, tR, tP, nextTick, nextSecond);
    if (tA === Number.POSITIVE_INFINITY && tSys > durationS) break;
    if (tSys <= tA) {
      if (tSys > durationS && tA > durationS) break;
      if (tC === tSys) complete(tC);
      else if (tR === tSys) ready(tR);
      else if (tP === tSys) perfectStep(tP);
      else if (nextTick === tSys) {
        metrics.advance(tSys);
        control?.tick(tSys);
        nextTick += intervalS;
      } else {
        if (recordTimeline) timeline.push({ t: nextSecond, desired, inService: serving.length });
        nextSecond += 1;
      }
      if (serving.length + booting.length > peak) peak = serving.length + booting.length;
      continue;
    }
    // An arrival.
    const t = tA;
    tA = nextArrival();
    metrics.advance(t);
    metrics.invocation(serving.length);
    const n = serving.length;
    if (n === 0) {
      windows.miss(t, true);
      continue;
    }
    const chosen = routing.pick() as number;
    const inst = instances[chosen] as Instance;
    if (inst.inFlight >= device.queueMaxDepth) {
      windows.miss(t, true);
      continue;
    }
    inst.inFlight += 1;
    routing.shift(chosen, 1);
    metrics.concurrency(inst.inFlight);
    const lanes = inst.laneFree;
    let lane = 0;
    for (let k = 1; k < lanes.length; k++) if ((lanes[k] as number) < (lanes[lane] as number)) lane = k;
    const begin = Math.max(t, lanes[lane] as number);
    const serviceS = draw() / 1000;
    const end = begin + serviceS;
    lanes[lane] = end;
    heap.push(end, chosen);
    windows.answered(t, (begin - t) * 1000 + serviceS * 1000 * fa + overheadMs);
  }

  let billedS = 0;
  for (const inst of instances) billedS += Math.max(0, Math.min(inst.goneAtS, durationS) - inst.billedFromS);
  const summary = windows.finish();
  return {
    ...summary,
    instanceHours: billedS / 3600,
    peakInstances: peak,
    timeline,
    activities: control?.activities ?? [],
    alarmTransitions: control?.transitions ?? [],
  };
}
