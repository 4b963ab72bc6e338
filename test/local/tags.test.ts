/**
 * SageMaker AddTags / DeleteTags / ListTags on the local SageMaker, through the real SDK client:
 * where a freeze's thaw journal travels with the endpoint. The shapes and refusals are the
 * service's, so code that works here does not meet a surprise on AWS.
 */
import {
  AddTagsCommand,
  DeleteTagsCommand,
  DescribeEndpointCommand,
  ListTagsCommand,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor, fakeContainer } from './helpers.js';

let handle: LocalSageMakerHandle;
let clients: ReturnType<typeof clientsFor>;
let arn: string;

beforeAll(async () => {
  handle = await startLocalSageMaker({ container: fakeContainer(), provisionDelayS: 0 });
  clients = clientsFor(handle);
  const described = await clients.sagemaker.send(
    new DescribeEndpointCommand({ EndpointName: handle.endpointName }),
  );
  arn = described.EndpointArn as string;
}, 60_000);

afterAll(async () => {
  clients?.destroy();
  await handle?.close();
}, 120_000);

const list = async (resourceArn = arn) =>
  (await clients.sagemaker.send(new ListTagsCommand({ ResourceArn: resourceArn }))).Tags ?? [];

describe('local SageMaker tags (AddTags, DeleteTags, ListTags)', () => {
  it('adds, overwrites, lists and deletes an endpoint’s tags as SageMaker does (a journal written there reads back intact)', async () => {
    const added = await clients.sagemaker.send(
      new AddTagsCommand({
        ResourceArn: arn,
        Tags: [
          { Key: 'scalegate:thaw-journal', Value: 'v1:1' },
          { Key: 'scalegate:thaw-journal:1', Value: 'eyJhIjoxfQ==' },
          { Key: 'team', Value: 'speech' },
        ],
      }),
    );
    expect(added.Tags).toHaveLength(3);
    await clients.sagemaker.send(
      new AddTagsCommand({ ResourceArn: arn, Tags: [{ Key: 'team', Value: 'voice' }] }),
    );
    expect(await list()).toEqual([
      { Key: 'scalegate:thaw-journal', Value: 'v1:1' },
      { Key: 'scalegate:thaw-journal:1', Value: 'eyJhIjoxfQ==' },
      { Key: 'team', Value: 'voice' },
    ]);
    // Keys the resource does not carry are ignored, as on AWS.
    await clients.sagemaker.send(
      new DeleteTagsCommand({
        ResourceArn: arn,
        TagKeys: ['scalegate:thaw-journal', 'scalegate:thaw-journal:1', 'absent'],
      }),
    );
    expect(await list()).toEqual([{ Key: 'team', Value: 'voice' }]);
    await clients.sagemaker.send(new DeleteTagsCommand({ ResourceArn: arn, TagKeys: ['team'] }));
    expect(await list()).toEqual([]);
  });

  it('refuses what SageMaker refuses, changing nothing: characters outside the tag pattern, aws: keys, more than 50 tags, an unknown or malformed ARN', async () => {
    const refused = async (send: Promise<unknown>, message: RegExp) => {
      const error = (await send.then(
        () => null,
        (e: Error) => e,
      )) as Error | null;
      expect(error?.name).toBe('ValidationException');
      expect(error?.message).toMatch(message);
    };
    await refused(
      clients.sagemaker.send(
        new AddTagsCommand({ ResourceArn: arn, Tags: [{ Key: 'ok', Value: '{"json":1}' }] }),
      ),
      /failed to satisfy constraint/,
    );
    await refused(
      clients.sagemaker.send(
        new AddTagsCommand({ ResourceArn: arn, Tags: [{ Key: 'aws:owner', Value: 'x' }] }),
      ),
      /reserved/,
    );
    const many = Array.from({ length: 51 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
    await refused(clients.sagemaker.send(new AddTagsCommand({ ResourceArn: arn, Tags: many })), /50/);
    await refused(
      clients.sagemaker.send(new ListTagsCommand({ ResourceArn: `${arn}-missing` })),
      /does not exist/,
    );
    await refused(
      clients.sagemaker.send(new ListTagsCommand({ ResourceArn: 'speech-kokoro-82m' })),
      /regular expression pattern: arn:aws/,
    );
    await refused(
      clients.sagemaker.send(new ListTagsCommand({ ResourceArn: arn, MaxResults: 10 })),
      /greater than or equal to 50/,
    );
    expect(await list()).toEqual([]);
  });

  it('lists all 50 tags a resource can carry in one page and deletes exactly the keys given (no journal part is lost or left)', async () => {
    const tags = Array.from({ length: 50 }, (_, i) => ({
      Key: `k${String(i).padStart(2, '0')}`,
      Value: `${i}`,
    }));
    await clients.sagemaker.send(new AddTagsCommand({ ResourceArn: arn, Tags: tags }));
    const first = await clients.sagemaker.send(new ListTagsCommand({ ResourceArn: arn, MaxResults: 50 }));
    expect(first.Tags).toHaveLength(50);
    expect(first.NextToken).toBeUndefined();
    await clients.sagemaker.send(
      new DeleteTagsCommand({ ResourceArn: arn, TagKeys: tags.slice(0, 20).map((t) => t.Key) }),
    );
    expect(await list()).toHaveLength(30);
    await clients.sagemaker.send(
      new DeleteTagsCommand({ ResourceArn: arn, TagKeys: tags.slice(20).map((t) => t.Key) }),
    );
    expect(await list()).toEqual([]);
  });
});
