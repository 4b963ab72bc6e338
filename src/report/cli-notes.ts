/** One-line notes the CLI prints on stderr before a command's report: where it reads and writes. */

/** A run against the local SageMaker writes apart from the committed artifacts. */
export const localArtifactsNote = (dir: string): string =>
  `scalegate: the local SageMaker (AWS_ENDPOINT_URL on loopback): artifacts go to ${dir}/, not the committed artifacts/ (--out to choose another file)`;
