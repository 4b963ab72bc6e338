/**
 * The fixes the release gate names: the scalegate commands that measure, re-plan, validate or drill
 * a model's plan (the texts of `fix` in each refused check). Pure.
 */
import {
  drillFileName,
  type Fingerprint,
  fingerprintSlug,
  type ModelConfig,
  type PlanArtifact,
  validateFileName,
} from '../model/index.js';
import { calibrationEndpointName } from './policy-shape.js';

/** How a model gets a plan measured on exactly what is being deployed. */
export function measureFix(modelName: string, model: ModelConfig, deployImageDigest: string): string {
  const slug = fingerprintSlug({ instance_type: model.instance_type, image_digest: deployImageDigest });
  const calibration = calibrationEndpointName(model.endpoint);
  const qmaxFile = `artifacts/qmax-${modelName}-response-stream-${slug}.json`;
  const ttotalFile = `artifacts/ttotal-${modelName}-force-desired-${slug}.json`;
  return (
    `measure this image on ${model.instance_type} in ${model.region}: run the calibrate workflow for ${modelName}, or by hand ` +
    `\`scalegate deploy ${modelName} --calibration\`, \`scalegate qmax --model ${modelName} --endpoint ${calibration} --out ${qmaxFile}\`, ` +
    `\`scalegate ttotal --model ${modelName} --endpoint ${calibration} --qmax ${qmaxFile} --out ${ttotalFile}\`, ` +
    `then \`scalegate plan --model ${modelName} --qmax ${qmaxFile} --ttotal ${ttotalFile}\` and commit artifacts/plan-${modelName}.json`
  );
}

/** The kinds of measurement a plan was made from, as a fix names them ("qmax/ttotal/drill"). */
export function measuredKinds(plan: PlanArtifact): string {
  const { ttotal, drill, goodput, tune } = plan.inputs;
  return ['qmax', ttotal && 'ttotal', drill && 'drill', goodput && 'goodput', tune && 'tune']
    .filter(Boolean)
    .join('/');
}

/** `scalegate plan` from the plan's own inputs (re-planning without re-measuring). */
export function replanFix(modelName: string, plan: PlanArtifact): string {
  const ttotal = plan.inputs.ttotal
    ? ` --ttotal ${plan.inputs.ttotal.file}`
    : plan.inputs.t_total_stated_s !== null
      ? ` --assume-t-total ${plan.inputs.t_total_stated_s}`
      : '';
  const drill = plan.inputs.drill ? ` --drill ${plan.inputs.drill.file}` : '';
  const goodput = plan.inputs.goodput ? ` --goodput ${plan.inputs.goodput.file}` : '';
  const tune = plan.inputs.tune ? ` --tune ${plan.inputs.tune.file}` : '';
  return `\`scalegate plan --model ${modelName} --qmax ${plan.inputs.qmax.file}${ttotal}${drill}${goodput}${tune}\``;
}

/** How a plan gets its validate: its policy deployed on the calibration endpoint and read back. */
export function validateFix(modelName: string, model: ModelConfig, planFile: string): string {
  const calibration = calibrationEndpointName(model.endpoint);
  return (
    `deploy this plan's policy to the calibration endpoint and validate it there: run the calibrate workflow for ${modelName}, or by hand ` +
    `\`scalegate deploy ${modelName} --calibration --with-plan ${planFile}\`, ` +
    `\`scalegate validate --model ${modelName} --endpoint ${calibration} --plan ${planFile}\`, ` +
    `then commit artifacts/${validateFileName(modelName)}`
  );
}

/** How a plan gets a drill: a surge through its deployed policy on the calibration endpoint. */
export function drillFix(modelName: string, model: ModelConfig, planFile: string, fp: Fingerprint): string {
  const calibration = calibrationEndpointName(model.endpoint);
  return (
    `drill this plan's policy on the calibration endpoint: run the calibrate workflow for ${modelName} with the drill on, or by hand ` +
    `\`scalegate deploy ${modelName} --calibration --with-plan ${planFile}\`, ` +
    `\`scalegate drill --model ${modelName} --plan ${planFile} --endpoint ${calibration}\`, ` +
    `then commit artifacts/${drillFileName(modelName, fp)}`
  );
}
