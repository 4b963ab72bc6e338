/**
 * `scalegate ttotal`: time one real scale-out, stage by stage.
 *
 * Preflight (nothing changes until it passes; each refusal is exit 2 with what to do): the qmax
 * artifact is for this model, was measured over the transport ttotal probes with, has usable
 * rungs at the probe concurrency N and N/2, and its fingerprint equals the live endpoint's (or
 * allow-config-mismatch, which warns and is recorded); the instance quota has room for one more
 * instance. Then the endpoint is frozen at one instance (src/commands/freeze.ts: journal first),
 * a closed-loop probe runs at N (src/load), and one more instance is forced
 * (UpdateEndpointWeightsAndCapacities). The stages are timestamped from the call, the new
 * instance's log stream and its container's stage markers, DescribeEndpoint polls and the
 * probe's own latencies; src/analysis/ttotal.ts judges them. The freeze is always restored
 * (desired count and suspension flags as they were before the run), whatever happens.
 *
 * T_total runs from `desired_set` (the call) to `traffic_recovered` (the first recovery window).
 * `--repeat n` times n scale-outs inside the one freeze: after each, the desired count is set back
 * to the starting capacity and the next waits until the endpoint is InService there again;
 * src/analysis/ttotal-repeat.ts combines them with an upper prediction bound for the next T_total.
 */
import { join } from 'node:path';
import {
  assembleTtotalArtifact,
  halfRungP95,
  interpolatedProbeCandidates,
  isLowerBound,
  ladderP95,
  mismatchWarnings,
  policyLag,
  probeCandidates,
  usableRungs,
} from '../analysis/ttotal.js';
import { combineRepeats } from '../analysis/ttotal-repeat.js';
import type { AwsClients } from '../aws/clients.js';
import { describeVariantCapacity } from '../aws/endpoint.js';
import { readDeployedFingerprint } from '../aws/fingerprint.js';
import { readScaleOutAlarmTimings } from '../aws/policy.js';
import { createTransport } from '../load/transport/transports.js';
import {
  CONFIG_FILE,
  DEFAULT_ARTIFACTS_DIR,
  fingerprintDifferences,
  newRunId,
  opt,
  readArtifact,
  type TtotalArtifact,
  ttotalFileName,
  usage,
  writeArtifact,
} from '../model/index.js';
import { TTOTAL_DEFAULTS } from '../options/ttotal.js';
import { renderTtotalFailure, renderTtotalReport } from '../report/ttotal-text.js';
import type { Freeze, RestoreReport } from './freeze.js';
import { checkFreezeTarget, refuseProductionFreeze } from './freeze-guard.js';
import { frozenRun, journalRestoreRecordOf } from './frozen-run.js';
import { planRequests, prepareLoad, transportRequest } from './load-start.js';
import { quotaHeadroom } from './quota-headroom.js';
import { type CommandResult, resolveDeps } from './result.js';
import { ttotalDryRun } from './ttotal-dry-run.js';
import {
  TRIGGER,
  TTOTAL_TRANSPORT,
  type TtotalDeps,
  type TtotalInput,
  type TtotalPreflight,
} from './ttotal-input.js';
import { measureScaleOut, restoreCapacity, type ScaleOutOutcome } from './ttotal-scale-out.js';

export { TIMELINE_ORDER } from '../analysis/ttotal.js';
export { TTOTAL_DEFAULTS } from '../options/ttotal.js';

/** Every check that must pass before the endpoint is touched. Throws UsageError (exit 2) on refusal. */
export async function ttotalPreflight(
  input: TtotalInput,
  clients: AwsClients,
  log: (line: string) => void = () => {},
): Promise<TtotalPreflight> {
  checkFreezeTarget(input);
  const qmax = readArtifact('qmax', input.qmaxFile);
  const qmaxFile = opt('qmax', input.qmaxFile);
  const qmaxCommand = `scalegate qmax --model ${input.modelName}${input.endpoint === input.model.endpoint ? '' : ` --endpoint ${input.endpoint}`}`;
  if (qmax.model_name !== input.modelName) {
    throw usage`${qmaxFile}: measured for ${qmax.model_name}, not ${input.modelName}. Pass this model's qmax artifact, or measure one with \`${qmaxCommand}\`.`;
  }
  if (qmax.transport !== TTOTAL_TRANSPORT) {
    throw usage`${qmaxFile}: the ladder was measured over ${qmax.transport}, but ttotal probes over ${TTOTAL_TRANSPORT} (InvokeEndpointWithResponseStream through the endpoint, so the router can split the probe onto the new instance); a recovery target from another transport compares different paths. Measure the ladder over ${TTOTAL_TRANSPORT}: \`${qmaxCommand} --transport ${TTOTAL_TRANSPORT}\`.`;
  }

  const measuredPairs = probeCandidates(qmax);
  const candidates = [...new Set([...measuredPairs, ...interpolatedProbeCandidates(qmax)])].sort(
    (a, b) => a - b,
  );
  // The largest measured pair, unless it is so small (under Q_max / 4) that the host's own
  // overhead would hide the recovery: then the largest probe whose N/2 lies between two rungs.
  const largestMeasured = measuredPairs.at(-1);
  const defaultProbe =
    largestMeasured !== undefined && largestMeasured >= qmax.q_max / 4 ? largestMeasured : candidates.at(-1);
  const rungs = usableRungs(qmax);
  let n = input.probeConcurrency;
  if (n === undefined) {
    if (candidates.length === 0) {
      throw usage`${qmaxFile}: no probe concurrency N has usable rungs at both N and N/2 at or under Q_max ${qmax.q_max} (usable rungs: ${rungs.join(', ') || 'none'}). Re-run the ladder with rungs N and N/2 (e.g. \`${qmaxCommand} --rungs 1,2,4,...\`), or give ${opt('probe-concurrency')} N for rungs that exist.`;
    }
    n = defaultProbe as number;
  }
  // The probe needs a usable rung at N; its half may be measured or lie between two rungs.
  const half = Number.isInteger(n / 2) ? halfRungP95(qmax, n) : null;
  const missingRungs = [...(rungs.includes(n) ? [] : [n]), ...(half === null ? [n / 2] : [])];
  if (missingRungs.length > 0 || half === null) {
    throw usage`${opt('probe-concurrency', n)}: the ladder in ${input.qmaxFile} has no usable rung at ${missingRungs.join(' and ')} (the probe runs at N on one instance and recovery is judged against the ladder's p95 at N/2). Usable rungs: ${rungs.join(', ') || 'none'}; probe concurrencies that work: ${candidates.join(', ') || 'none'}. Give one of those, or re-measure with \`${qmaxCommand}\` so the ladder has rungs ${n} and ${n / 2}.`;
  }
  const halfP95Ms = half.p95Ms;

  const request = planRequests({ ...input, configFile: input.configFile ?? CONFIG_FILE }, input.model);
  await refuseProductionFreeze('ttotal', input, clients, log);
  const deployed = await readDeployedFingerprint(
    clients.sagemaker,
    input.endpoint,
    input.variant,
    input.region,
  );
  // What the probe measures: the deployed endpoint, with the request shape the probe sends.
  const live = { ...deployed, fingerprint: { ...deployed.fingerprint, request: request.shape } };
  const differences = fingerprintDifferences(qmax.fingerprint, live.fingerprint);
  const warnings = mismatchWarnings(differences, input.endpoint);
  if (differences.length > 0 && !input.allowConfigMismatch) {
    throw usage`${qmaxFile} was measured on another configuration than endpoint ${input.endpoint} runs now:\n${warnings.map((w) => `  - ${w}`).join('\n')}\nA T_total paired with a Q_max of another container or instance type sizes nothing. Measure Q_max on what is deployed (\`${qmaxCommand}\`) and pass that artifact, or allow the mismatch with ${opt('allow-config-mismatch')} (warns; recorded in the artifact).`;
  }

  const capacity = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant);
  const quota = await quotaHeadroom(input, clients, live.fingerprint.instance_type, capacity);

  const timings = await readScaleOutAlarmTimings(
    clients,
    `endpoint/${input.endpoint}/variant/${input.variant}`,
  );
  const lag = policyLag(timings, input.publicationDelayS ?? null);
  return {
    request,
    qmax,
    probeConcurrency: n,
    halfP95Ms,
    halfBetween: half.between,
    fullP95Ms: ladderP95(qmax, n),
    mismatchWarnings: warnings,
    quota,
    lag,
    fingerprint: live.fingerprint,
    capacity,
  };
}

export async function runTtotal(
  input: TtotalInput,
  deps: TtotalDeps,
): Promise<CommandResult<TtotalArtifact>> {
  const { log, progress, version } = resolveDeps(deps);
  const settleS = input.settleS ?? TTOTAL_DEFAULTS.settleS;
  const pollS = input.pollS ?? TTOTAL_DEFAULTS.pollS;
  const maxWaitS = input.maxWaitS ?? TTOTAL_DEFAULTS.maxWaitS;
  const minSamples = input.minWindowSamples ?? TTOTAL_DEFAULTS.minWindowSamples;
  const recoveryFactor = input.recoveryFactor ?? TTOTAL_DEFAULTS.recoveryFactor;
  const repeat = input.repeat ?? TTOTAL_DEFAULTS.repeat;
  const runId = input.runId ?? newRunId();

  const pre = await ttotalPreflight(input, deps.clients, log);
  const n = pre.probeConcurrency;
  const targetMs = pre.halfP95Ms * recoveryFactor;
  for (const w of pre.mismatchWarnings) log(`WARNING (--allow-config-mismatch): ${w}`);
  log(
    `ttotal: probe at ${n} in flight; recovery when p95 TTFAB <= ${targetMs.toFixed(1)} ms (ladder p95 at ${n / 2}${pre.halfBetween ? ` interpolated between rungs ${pre.halfBetween[0]} and ${pre.halfBetween[1]}` : ''} x ${recoveryFactor}) over ${settleS} s with >= ${minSamples} completions`,
  );
  if (input.dryRun) return ttotalDryRun(input, deps.clients, pre, { settleS, maxWaitS, targetMs });

  // Before anything is frozen: where the probe comes from, and whether the container takes its body.
  const check =
    deps.createTransport?.(1) ??
    createTransport(TTOTAL_TRANSPORT, {
      ...input,
      maxConcurrency: 1,
      targetUrl: null,
      loadClient: deps.loadClient,
      request: transportRequest(pre.request.shape),
    });
  const vantage = await prepareLoad('ttotal', check, pre.request, input, {
    timeoutMs: TTOTAL_DEFAULTS.requestTimeoutMs,
    signal: deps.signal,
    log,
    vantage: deps.vantage,
  });
  await check.close().catch(() => {});

  return frozenRun(
    {
      ...input,
      clients: deps.clients,
      commandLine:
        input.commandLine ?? `scalegate ttotal --model ${input.modelName} --qmax ${input.qmaxFile}`,
      runId,
      onJournal: deps.onJournal,
      pollIntervalMs: pollS * 1000,
      waitTimeoutS: maxWaitS,
      signal: deps.signal,
      handleSignals: deps.handleSignals,
      // ttotal moves the capacity itself (the scale-out): the freeze check looks at the claim,
      // the journal and the suspension only.
      checkCapacity: false,
      log,
      logRestore: (restore) =>
        log(
          `ttotal: restored ${restore.actions.join('; ')}${restore.errors.length > 0 ? `; FAILED: ${restore.errors.join('; ')}` : ''}`,
        ),
    },
    {
      measure: async ({ signal, freeze, checkFreeze }) => {
        const fromInstances = (freeze as Freeze).frozenCapacity.current ?? 1;
        const toInstances = fromInstances + 1;
        const outcomes: ScaleOutOutcome[] = [];
        for (let i = 0; i < repeat; i++) {
          if (i > 0) await restoreCapacity(input, deps, fromInstances, { pollS, maxWaitS }, signal, log);
          if (repeat > 1) log(`ttotal: scale-out ${i + 1} of ${repeat}`);
          const outcome = await measureScaleOut(
            input,
            deps,
            { n, settleS, pollS, maxWaitS, minSamples, targetMs, toInstances, request: pre.request },
            signal,
            log,
            progress,
          );
          outcomes.push(outcome);
          await checkFreeze();
          if (outcome.kind === 'failed') break;
        }
        return { outcomes, fromInstances, toInstances };
      },
      finish: async ({ outcomes, fromInstances, toInstances }, ctx) => {
        const freeze = ctx.freeze as Freeze;
        const restore = ctx.restore as RestoreReport;
        const restoreRecord = journalRestoreRecordOf(freeze, restore);
        const failed = outcomes.find((o) => o.kind === 'failed');
        if (failed?.kind === 'failed') {
          const done = outcomes.length - 1;
          const outcome = {
            ...failed,
            failure: {
              ...failed.failure,
              reason:
                repeat > 1
                  ? `scale-out ${outcomes.length} of ${repeat}: ${failed.failure.reason} (${done} completed before it; none is written, a repeated run is judged whole)`
                  : failed.failure.reason,
            },
          };
          return {
            artifact: null,
            report: renderTtotalFailure({
              modelName: input.modelName,
              endpoint: input.endpoint,
              failure: outcome.failure,
              restore: restoreRecord,
              journalFile: restore.journalDeleted ? null : freeze.journalFile,
            }),
            exitCode: 1,
            written: [],
          };
        }
        const single = (outcome: ScaleOutOutcome & { kind: 'ok' }) =>
          assembleTtotalArtifact({
            modelName: input.modelName,
            endpoint: input.endpoint,
            runId,
            fingerprint: pre.fingerprint,
            transport: TTOTAL_TRANSPORT,
            trigger: TRIGGER,
            qmax: pre.qmax,
            lag: pre.lag,
            instanceId: outcome.stream?.instanceId ?? null,
            fromInstances,
            toInstances,
            probeConcurrency: n,
            halfBetween: pre.halfBetween,
            obs: outcome.obs,
            before: outcome.before,
            after: outcome.after,
            targetMs,
            mismatchWarnings: pre.mismatchWarnings,
            settings: {
              probe_concurrency: n,
              recovery_window_s: settleS,
              recovery_min_samples: minSamples,
              recovery_target_factor: recoveryFactor,
              poll_s: pollS,
              max_wait_s: maxWaitS,
              pre_trigger_s: settleS,
              publication_delay_s: input.publicationDelayS ?? null,
            },
            quota: pre.quota,
            restore: restoreRecord,
            keptJournal: restore.errors.length > 0 ? freeze.journalFile : null,
            tool: `scalegate ${version}`,
          });
        const completed = outcomes.filter((o): o is ScaleOutOutcome & { kind: 'ok' } => o.kind === 'ok');
        const artifact =
          repeat > 1
            ? combineRepeats(completed.map(single))
            : single(completed[0] as ScaleOutOutcome & { kind: 'ok' });
        artifact.vantage = vantage;
        const outFile =
          input.outFile ??
          join(
            input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
            ttotalFileName(input.modelName, TRIGGER, pre.fingerprint),
          );
        writeArtifact('ttotal', outFile, artifact);
        return {
          artifact,
          report: renderTtotalReport(artifact, outFile),
          // A lower-bound T_total (it ends at in_service) would under-size headroom if planned on.
          exitCode: restore.errors.length > 0 || isLowerBound(artifact) ? 1 : 0,
          written: [outFile],
        };
      },
    },
  );
}
