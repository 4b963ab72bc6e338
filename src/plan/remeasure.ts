/**
 * A re-measurement command for a fix. It names the calibration copy of the endpoint: the freezing
 * commands refuse the model's own (production) endpoint, and a fix must be runnable as written.
 */
export const remeasure = (command: 'qmax' | 'goodput' | 'ttotal', model: string, rest = ''): string =>
  `\`scalegate ${command} --model ${model} --endpoint <endpoint>-calibration${rest}\``;
