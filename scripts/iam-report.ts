// Lists what the calibration role can reach, from the synthesized templates: its own policy and
// the policies of every role it may assume or pass (the sgcal deploy, file-publishing and
// image-publishing roles of infra/bootstrap/calibration-bootstrap.yaml, the CloudFormation
// execution role with the policy it carries, the calibration SageMaker execution role), as a
// table "principal | effect | actions | resources", then the findings: any statement that reaches
// a production stack or endpoint, the default CDK bootstrap roles, the release role, or grants a
// changing action on `*`. Exits 1 on a finding. test/infra/iam-reach.test.ts asserts the same.
// Usage: npm run iam:report [-- --config scalegate.config.json] [--account 111122223333]
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT, readAppConfig } from '../infra/lib/app.js';
import { calibrationReach } from '../infra/lib/calibration-reach.js';
import { renderReach } from '../infra/lib/iam-reach.js';
import { CONFIG_FILE } from '../src/model/index.js';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: CONFIG_FILE },
    account: { type: 'string', default: '111122223333' },
  },
});
const configFile = resolve(REPO_ROOT, values.config as string);
const config = readAppConfig(configFile);
let findings = 0;
for (const { account, regions, report } of calibrationReach(config, {
  account: values.account as string,
  repoRoot: REPO_ROOT,
})) {
  console.log(`## calibration role of account ${account} (${regions.join(', ')}), config ${configFile}\n`);
  console.log(renderReach(report));
  console.log('');
  findings += report.findings.length;
}
process.exit(findings === 0 ? 0 : 1);
