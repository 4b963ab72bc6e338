/** SDK v3 client configuration that points a client at a running local SageMaker. */
export interface LocalClientConfig {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

export function clientConfigFor(handle: { url: string; region: string }): LocalClientConfig {
  return {
    endpoint: handle.url,
    region: handle.region,
    // The local SageMaker does not check signatures; the SDK only needs something to sign with.
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
}
