/**
 * qmax, goodput and ttotal never freeze a model's production endpoint by default: aimed at the model's
 * configured endpoint they exit 2 before any AWS call, unless --allow-production, and clients on
 * loopback (the local SageMaker) are exempt. The AWS clients are the real SDK ones; "no AWS call"
 * is proven by a loopback server that records every request it gets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../src/aws/clients.js';
import { type FreezeTarget, refuseProductionFreeze as guardOf } from '../../src/commands/freeze-guard.js';
import { isUsageError, type UsageError } from '../../src/model/errors.js';
import { anchorQmaxFile, configFile } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const guard: FreezeTarget = {
  modelName: 'kokoro-82m',
  model: { endpoint: 'speech-kokoro-82m' },
  endpoint: 'speech-kokoro-82m',
  variant: 'AllTraffic',
};
const refuseProductionFreeze = (target: FreezeTarget, c: AwsClients, log?: (line: string) => void) =>
  guardOf('qmax', target, c, log);

let recorder: Server;
let recorderUrl: string;
const requests: string[] = [];
const opened: AwsClients[] = [];

beforeAll(async () => {
  recorder = createServer((req, res) => {
    requests.push(`${req.method} ${req.headers['x-amz-target'] ?? req.url}`);
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify({ __type: 'ValidationException', message: 'recorder' }));
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => recorder.close(resolve));
});

const ENV_KEYS = [
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_SAGEMAKER',
  'AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
];
const savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

afterEach(() => {
  for (const clients of opened.splice(0)) destroyAwsClients(clients);
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  requests.length = 0;
});

function clients(endpoint?: string): AwsClients {
  const c = createAwsClients({ region: 'us-east-1', credentials, ...(endpoint ? { endpoint } : {}) });
  opened.push(c);
  return c;
}

async function refusal(promise: Promise<unknown>): Promise<UsageError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isUsageError(error), String(error)).toBe(true);
  return error as UsageError;
}

describe('the production guard of freezing commands', () => {
  it('refuses the model’s configured endpoint on AWS, naming the calibration copy and --allow-production', async () => {
    const e = await refusal(refuseProductionFreeze(guard, clients()));
    expect(e.message).toMatch(
      /qmax would freeze speech-kokoro-82m, the production endpoint of model kokoro-82m/,
    );
    expect(e.message).toMatch(/--endpoint speech-kokoro-82m-calibration/);
    expect(e.message).toMatch(/--allow-production/);
    expect(e.messageFor('action')).toMatch(/input allow-production/);
  });

  it('lets through another endpoint of the model, production with --allow-production, and clients on loopback (the local SageMaker)', async () => {
    await refuseProductionFreeze({ ...guard, endpoint: 'speech-kokoro-82m-calibration' }, clients());
    const lines: string[] = [];
    await refuseProductionFreeze({ ...guard, allowProduction: true }, clients(), (l) => lines.push(l));
    expect(lines.join()).toMatch(/WARNING --allow-production/);
    await refuseProductionFreeze(guard, clients('http://127.0.0.1:4566'));
    await refuseProductionFreeze(guard, clients('http://localhost:4566'));
    await refuseProductionFreeze(guard, clients('http://[::1]:4566'));
  });

  it('refuses another model’s production endpoint and a different-case spelling of any production endpoint, naming the model’s own calibration endpoint', async () => {
    const reference: FreezeTarget = {
      modelName: 'reference-tts',
      model: { endpoint: 'speech-reference-tts' },
      endpoint: 'speech-kokoro-82m',
      variant: 'AllTraffic',
      configFile,
    };
    const foreign = await refusal(refuseProductionFreeze(reference, clients()));
    expect(foreign.message).toMatch(
      /would freeze speech-kokoro-82m, the production endpoint of model kokoro-82m .*not model reference-tts's/,
    );
    expect(foreign.message).toMatch(/--endpoint speech-reference-tts-calibration/);
    const upper = await refusal(
      refuseProductionFreeze({ ...reference, endpoint: 'Speech-Kokoro-82M' }, clients()),
    );
    expect(upper.message).toMatch(/Speech-Kokoro-82M, the production endpoint of model kokoro-82m/);
    const ownUpper = await refusal(
      refuseProductionFreeze({ ...guard, endpoint: 'SPEECH-KOKORO-82M' }, clients()),
    );
    expect(ownUpper.message).toMatch(
      /the production endpoint of model kokoro-82m \(its configured endpoint\)/,
    );
    // Another model's calibration copy is not this model's: refused too.
    const otherCalibration = await refusal(
      refuseProductionFreeze({ ...reference, endpoint: 'speech-kokoro-82m-calibration' }, clients()),
    );
    expect(otherCalibration.message).toMatch(
      /not model reference-tts's calibration endpoint \(speech-reference-tts-calibration\)/,
    );
    // Any other endpoint: refused, naming the calibration endpoint to use.
    const stray = await refusal(
      refuseProductionFreeze({ ...guard, endpoint: 'speech-kokoro-82m-staging' }, clients()),
    );
    expect(stray.message).toMatch(
      /not model kokoro-82m's calibration endpoint \(speech-kokoro-82m-calibration\)/,
    );
    expect(stray.message).toMatch(/--allow-production/);
    // The model's own calibration endpoint, in any case, passes; --allow-production passes with a warning.
    await refuseProductionFreeze(
      { ...guard, endpoint: 'Speech-Kokoro-82M-Calibration', configFile },
      clients(),
    );
    const lines: string[] = [];
    await refuseProductionFreeze({ ...reference, allowProduction: true }, clients(), (l) => lines.push(l));
    expect(lines.join()).toMatch(
      /WARNING --allow-production: freezing speech-kokoro-82m, the production endpoint of kokoro-82m/,
    );
    expect(requests).toEqual([]);
  });

  it('is not fooled by AWS_ENDPOINT_URL on loopback when one freezing client is sent elsewhere by its own variable', async () => {
    process.env.AWS_ENDPOINT_URL = 'http://127.0.0.1:4566';
    await refuseProductionFreeze(guard, clients());
    process.env.AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING =
      'https://application-autoscaling.us-east-1.amazonaws.com';
    await refusal(refuseProductionFreeze(guard, clients()));
    process.env.AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING = 'http://127.0.0.2:4566';
    await refuseProductionFreeze(guard, clients());
    // 0.0.0.0 and a look-alike host name are not loopback.
    await refusal(refuseProductionFreeze(guard, clients('http://0.0.0.0:4566')));
    await refusal(refuseProductionFreeze(guard, clients('http://127.0.0.1.example.com:4566')));
  });

  it('qmax, goodput and ttotal on the command line exit 2 before any AWS call (the recorder sees no request)', async () => {
    process.env.AWS_REGION = 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    // SageMaker calls would reach the loopback recorder; Application Auto Scaling would reach AWS.
    process.env.AWS_ENDPOINT_URL_SAGEMAKER = recorderUrl;
    process.env.AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING =
      'https://application-autoscaling.us-east-1.amazonaws.com';
    const qmax = await runCli(['qmax', '--config', configFile, '--model', 'kokoro-82m']);
    expect(qmax.exitCode, qmax.stderr).toBe(2);
    expect(qmax.stderr).toMatch(/qmax would freeze speech-kokoro-82m, the production endpoint/);
    const ttotal = await runCli([
      'ttotal',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--qmax',
      anchorQmaxFile,
    ]);
    expect(ttotal.exitCode, ttotal.stderr).toBe(2);
    expect(ttotal.stderr).toMatch(/ttotal would freeze speech-kokoro-82m/);
    const goodput = await runCli(['goodput', '--config', configFile, '--model', 'kokoro-82m']);
    expect(goodput.exitCode, goodput.stderr).toBe(2);
    expect(goodput.stderr).toMatch(/goodput would freeze speech-kokoro-82m, the production endpoint/);
    const foreign = await runCli([
      'qmax',
      '--config',
      configFile,
      '--model',
      'reference-tts',
      '--endpoint',
      'Speech-Kokoro-82M',
    ]);
    expect(foreign.exitCode, foreign.stderr).toBe(2);
    expect(foreign.stderr).toMatch(/the production endpoint of model kokoro-82m/);
    expect(foreign.stderr).toMatch(/--endpoint speech-reference-tts-calibration/);
    expect(requests).toEqual([]);
    // With --allow-production the guard lets it through: the first call (DescribeEndpoint) is made.
    const allowed = await runCli([
      'qmax',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--allow-production',
    ]);
    expect(allowed.exitCode).not.toBe(2);
    expect(requests[0]).toBe('POST SageMaker.DescribeEndpoint');
  });

  it('refuses an --endpoint that is not a SageMaker name and an --out that is a directory before measuring (exit 2)', async () => {
    const badName = await runCli([
      'qmax',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--endpoint',
      '../../x',
    ]);
    expect(badName.exitCode).toBe(2);
    expect(badName.stderr).toMatch(/--endpoint "..\/..\/x": not a SageMaker endpoint name/);
    const dirOut = await runCli([
      'qmax',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--endpoint',
      'speech-kokoro-82m-calibration',
      '--out',
      'artifacts/',
    ]);
    expect(dirOut.exitCode).toBe(2);
    expect(dirOut.stderr).toMatch(/--out "artifacts\/": names a directory/);
    const ttotalOut = await runCli([
      'ttotal',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--endpoint',
      'speech-kokoro-82m-calibration',
      '--qmax',
      anchorQmaxFile,
      '--out',
      'artifacts/',
    ]);
    expect(ttotalOut.exitCode).toBe(2);
    expect(ttotalOut.stderr).toMatch(/--out "artifacts\/": names a directory/);
    expect(requests).toEqual([]);
  });
});
