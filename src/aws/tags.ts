/**
 * Thin adapters over SageMaker's tagging calls (AddTags, DeleteTags, ListTags) on an endpoint,
 * which is where the thaw journal travels with the endpoint. No decisions here.
 */
import {
  AddTagsCommand,
  DeleteTagsCommand,
  DescribeEndpointCommand,
  ListTagsCommand,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import type { CallOptions } from './endpoint.js';

/** The endpoint's ARN, as DescribeEndpoint states it (tags are addressed by ARN). */
export async function endpointArn(
  sagemaker: SageMakerClient,
  endpoint: string,
  options: CallOptions = {},
): Promise<string> {
  const out = await sagemaker.send(new DescribeEndpointCommand({ EndpointName: endpoint }), options);
  if (!out.EndpointArn) throw new Error(`DescribeEndpoint ${endpoint}: no EndpointArn in the answer`);
  return out.EndpointArn;
}

/** Every tag of a SageMaker resource (ListTags, all pages). */
export async function listResourceTags(
  sagemaker: SageMakerClient,
  resourceArn: string,
  options: CallOptions = {},
): Promise<Record<string, string>> {
  const tags: Record<string, string> = {};
  let nextToken: string | undefined;
  do {
    const out = await sagemaker.send(
      new ListTagsCommand({ ResourceArn: resourceArn, MaxResults: 100, NextToken: nextToken }),
      options,
    );
    for (const tag of out.Tags ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
    nextToken = out.NextToken;
  } while (nextToken);
  return tags;
}

/** AddTags: adds or overwrites these tags in one call. */
export async function addResourceTags(
  sagemaker: SageMakerClient,
  resourceArn: string,
  tags: Record<string, string>,
  options: CallOptions = {},
): Promise<void> {
  await sagemaker.send(
    new AddTagsCommand({
      ResourceArn: resourceArn,
      Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
    }),
    options,
  );
}

/** DeleteTags of these keys (none: no call). */
export async function deleteResourceTags(
  sagemaker: SageMakerClient,
  resourceArn: string,
  keys: string[],
  options: CallOptions = {},
): Promise<void> {
  if (keys.length === 0) return;
  await sagemaker.send(new DeleteTagsCommand({ ResourceArn: resourceArn, TagKeys: keys }), options);
}
