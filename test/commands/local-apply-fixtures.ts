/**
 * Shared by the drift, validate, local-apply and ttotal tests: a local SageMaker, real SDK
 * clients pointed at it, and plans whose fingerprint is the emulator endpoint's (so the gate's
 * fingerprint rule holds exactly as on AWS).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeEndpointCommand, ListTagsCommand } from '@aws-sdk/client-sagemaker';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../src/aws/clients.js';
import { readDeployedFingerprint } from '../../src/aws/fingerprint.js';
import { runPlan } from '../../src/commands/plan.js';
import {
  clientConfigFor,
  type LocalSageMakerHandle,
  type LocalSageMakerOptions,
  startLocalSageMaker,
} from '../../src/local/index.js';
import { readConfigFile } from '../../src/model/config.js';
import { type Fingerprint, modelFromConfig, readArtifact } from '../../src/model/index.js';
import { anchorQmaxFile, configFile } from '../helpers/anchor.js';

export const MODEL = 'kokoro-82m';
export { configFile };

/**
 * A serial TTS stand-in with GPU-like (timer, not CPU) service time: see ttotal-container.mjs for
 * why the ttotal tests use it instead of the CPU-bound reference container.
 */
export const serialContainer = {
  command: [process.execPath, fileURLToPath(new URL('./ttotal-container.mjs', import.meta.url))],
  env: { SERVICE_MS: '40', CHUNKS: '4', INIT_MS: '300' },
};

export const modelConfig = () => modelFromConfig(readConfigFile(configFile), MODEL, configFile)[1];

export interface Emulator {
  handle: LocalSageMakerHandle;
  clients: AwsClients;
  close(): Promise<void>;
}

export async function startEmulator(options: LocalSageMakerOptions = {}): Promise<Emulator> {
  const handle = await startLocalSageMaker({ provisionDelayS: 0, ...options });
  const config = clientConfigFor(handle);
  const clients = createAwsClients({
    region: config.region,
    endpoint: config.endpoint,
    credentials: config.credentials,
  });
  return {
    handle,
    clients,
    async close() {
      destroyAwsClients(clients);
      await handle.close();
    },
  };
}

export const workspace = (prefix: string): string => mkdtempSync(join(tmpdir(), `scalegate-${prefix}-`));

/** What the plan helpers need of an emulator: its endpoint and clients (in process or `local up`). */
export interface EndpointAccess {
  handle: Pick<LocalSageMakerHandle, 'endpointName' | 'variantName' | 'region'>;
  clients: AwsClients;
}

export async function liveFingerprint(emulator: EndpointAccess): Promise<Fingerprint> {
  const { handle, clients } = emulator;
  return (
    await readDeployedFingerprint(clients.sagemaker, handle.endpointName, handle.variantName, handle.region)
  ).fingerprint;
}

/** The anchor qmax ladder (real AWS numbers) re-fingerprinted as the emulator endpoint's. */
export async function emulatorQmaxFile(
  emulator: EndpointAccess,
  dir: string,
  edit?: (json: Record<string, unknown>) => void,
): Promise<string> {
  const qmax = readArtifact('qmax', anchorQmaxFile);
  const json = {
    ...qmax,
    fingerprint: await liveFingerprint(emulator),
    endpoint: emulator.handle.endpointName,
  } as Record<string, unknown>;
  edit?.(json);
  const file = join(dir, `qmax-${Math.random().toString(16).slice(2, 8)}.json`);
  writeFileSync(file, JSON.stringify(json, null, 2));
  return file;
}

/** A plan (anchor ladder, stated T_total) measured "on" the emulator endpoint. */
export async function emulatorPlanFile(emulator: EndpointAccess, dir: string): Promise<string> {
  const qmaxFile = await emulatorQmaxFile(emulator, dir);
  const out = join(dir, 'plan.json');
  const result = runPlan(
    {
      modelName: MODEL,
      model: modelConfig(),
      qmaxFile,
      assumeTTotalS: 260,
      allowConfigMismatch: false,
      outFile: out,
      failOn: 'stop',
    },
    { version: 'test' },
  );
  if (result.exitCode !== 0) throw new Error(`plan failed:\n${result.report}`);
  return out;
}

/** The plan fields the tests edit. */
export interface EditablePlan {
  model_name: string;
  fingerprint: { image_digest: string; instance_type: string };
  [key: string]: unknown;
}

/** A copy of a plan file with one edit. */
export function editedCopy(
  file: string,
  dir: string,
  name: string,
  edit: (json: EditablePlan) => void,
): string {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  edit(json);
  const out = join(dir, name);
  writeFileSync(out, JSON.stringify(json, null, 2));
  return out;
}

/** Environment for running the CLI in process against the emulator. */
export function withEmulatorEnv(emulator: Emulator, stateDir: string): () => void {
  const saved: Record<string, string | undefined> = {};
  const set = (key: string, value: string) => {
    saved[key] = process.env[key];
    process.env[key] = value;
  };
  const config = clientConfigFor(emulator.handle);
  set('AWS_ENDPOINT_URL', config.endpoint);
  set('AWS_REGION', config.region);
  set('AWS_ACCESS_KEY_ID', config.credentials.accessKeyId);
  set('AWS_SECRET_ACCESS_KEY', config.credentials.secretAccessKey);
  set('SCALEGATE_STATE_DIR', stateDir);
  return () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

/** The freeze-relevant state of the emulator's endpoint: suspension flags, desired count, tag keys. */
export async function endpointState(emulator: Emulator) {
  const { endpointName, variantName } = emulator.handle;
  const target = await emulator.clients.autoscaling.send(
    new DescribeScalableTargetsCommand({
      ServiceNamespace: 'sagemaker',
      ResourceIds: [`endpoint/${endpointName}/variant/${variantName}`],
    }),
  );
  const described = await emulator.clients.sagemaker.send(
    new DescribeEndpointCommand({ EndpointName: endpointName }),
  );
  const tags = await emulator.clients.sagemaker.send(
    new ListTagsCommand({ ResourceArn: described.EndpointArn }),
  );
  return {
    suspended: target.ScalableTargets?.[0]?.SuspendedState,
    desired: described.ProductionVariants?.[0]?.DesiredInstanceCount,
    tags: (tags.Tags ?? []).map((t) => t.Key as string),
  };
}
