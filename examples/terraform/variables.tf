# The values `scalegate plan --from artifacts/plan-<model>.json --format tfvars` prints (every
# name it prints is declared here), plus the one value only this configuration knows: the digest of
# the image it deploys. See docs/terraform.md.

variable "deployed_image_digest" {
  description = "sha256 digest (64 hex, without the sha256: prefix) of the image the endpoint runs; must be the image the plan was measured on"
  type        = string
}

variable "scalegate_model" {
  type = string
}
variable "scalegate_endpoint_name" {
  type = string
}
variable "scalegate_variant_name" {
  type = string
}
variable "scalegate_resource_id" {
  description = "endpoint/<endpoint>/variant/<variant>"
  type        = string
}
variable "scalegate_min_capacity" {
  type = number
}
variable "scalegate_max_capacity" {
  type = number
}
variable "scalegate_scaling_metric" {
  description = "ConcurrentRequestsPerModel or InvocationsPerInstance"
  type        = string
}
variable "scalegate_predefined_metric_type" {
  description = "SageMakerVariantConcurrentRequestsPerModelHighResolution or SageMakerVariantInvocationsPerInstance"
  type        = string
}
variable "scalegate_target_value" {
  description = "target of the scale-out policy, in the tracked metric's own units"
  type        = number
}
variable "scalegate_scale_out_cooldown_s" {
  type = number
}
variable "scalegate_scale_in_threshold" {
  type = number
}
variable "scalegate_scale_in_cooldown_s" {
  type = number
}
variable "scalegate_scale_in_metric_name" {
  type = string
}
variable "scalegate_scale_in_statistic" {
  description = "Maximum (ConcurrentRequestsPerModel) or Sum (InvocationsPerInstance)"
  type        = string
}
variable "scalegate_scale_in_period_s" {
  type = number
}
variable "scalegate_scale_in_evaluation_periods" {
  type = number
}
variable "scalegate_above_target_periods" {
  type = number
}
variable "scalegate_queue_max_depth" {
  description = "the container's MAX_QUEUE_DEPTH"
  type        = number
}
variable "scalegate_slo_ms" {
  type = number
}
variable "scalegate_service_time_alarm_ms" {
  description = "null when the plan has no measured TTFAB p95 at concurrency 1 (no service-time alarm)"
  type        = number
  default     = null
}
variable "scalegate_plan_run_id" {
  type = string
}
variable "scalegate_plan_sha256" {
  type = string
}
variable "scalegate_plan_verdict" {
  type = string
}
variable "scalegate_image_digest" {
  description = "the image the plan was measured on"
  type        = string
}
variable "scalegate_instance_type" {
  type = string
}
variable "scalegate_region" {
  type = string
}
