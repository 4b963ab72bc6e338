/** The value types of `scalegate plan --format json|tfvars` (deployable-values.ts, deployable-values-ic.ts). */

/** A scalar, or (a tuned plan's scheduled actions and step scale-out) a list or object of them. */
export type DeployableValue =
  | string
  | number
  | boolean
  | null
  | DeployableValue[]
  | { [key: string]: DeployableValue };

/** Variable name -> value; names are Terraform identifiers, each prefixed `scalegate_`. */
export type DeployableValues = Record<string, DeployableValue>;
