# The measured scaling policy of a SageMaker endpoint, from a scalegate plan (docs/terraform.md):
#
#   npx scalegate gate --model kokoro-82m --region us-east-1        # pre-apply check; exit 1 = refused
#   npx scalegate plan --model kokoro-82m --from artifacts/plan-kokoro-82m.json --format tfvars > scalegate.auto.tfvars
#   terraform apply -var deployed_image_digest=<sha256 hex of the image the endpoint runs>
#   npx scalegate validate --model kokoro-82m --plan artifacts/plan-kokoro-82m.json   # read back: every parameter equals the plan
#
# Every name, number, statistic and period below is what `scalegate validate` compares (the same
# shape the scalegate CDK constructs deploy): change a constant here and validate reports it.
# The endpoint itself (model, endpoint config, endpoint) is the team's own; its container must get
# MAX_QUEUE_DEPTH = var.scalegate_queue_max_depth (output `container_environment`).

terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

data "aws_region" "current" {}

locals {
  name       = "scalegate-${var.scalegate_endpoint_name}-${var.scalegate_variant_name}"
  dimensions = { EndpointName = var.scalegate_endpoint_name, VariantName = var.scalegate_variant_name }
}

resource "aws_appautoscaling_target" "variant" {
  service_namespace  = "sagemaker"
  resource_id        = var.scalegate_resource_id
  scalable_dimension = "sagemaker:variant:DesiredInstanceCount"
  min_capacity       = var.scalegate_min_capacity
  max_capacity       = var.scalegate_max_capacity

  # Deployed explicitly false: an apply also clears a freeze an interrupted measurement left behind.
  suspended_state {
    dynamic_scaling_in_suspended  = false
    dynamic_scaling_out_suspended = false
    scheduled_scaling_suspended   = false
  }

  # The apply is gated on what the plan was measured for (`scalegate gate` checks the rest: the
  # plan follows from its measurements, it is not stop, it was validated on the calibration copy).
  lifecycle {
    precondition {
      condition     = var.scalegate_image_digest == var.deployed_image_digest
      error_message = "plan ${var.scalegate_plan_run_id} was measured on image ${var.scalegate_image_digest}, this endpoint runs ${var.deployed_image_digest}: measure this image (scalegate qmax / ttotal / plan) before applying its scaling."
    }
    precondition {
      condition     = var.scalegate_region == data.aws_region.current.name
      error_message = "plan ${var.scalegate_plan_run_id} was measured in ${var.scalegate_region}, this apply targets ${data.aws_region.current.name}."
    }
    precondition {
      condition     = var.scalegate_plan_verdict != "stop"
      error_message = "plan ${var.scalegate_plan_run_id} has verdict stop: fix its findings (scalegate plan prints them) before applying."
    }
  }
}

# Scale out: target tracking on the metric the plan chose, at the plan's target (in that metric's
# own units). Its own scale-in is disabled: scale-in is the step policy below.
resource "aws_appautoscaling_policy" "scale_out" {
  name               = "${local.name}-scale-out"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = aws_appautoscaling_target.variant.service_namespace
  resource_id        = aws_appautoscaling_target.variant.resource_id
  scalable_dimension = aws_appautoscaling_target.variant.scalable_dimension

  target_tracking_scaling_policy_configuration {
    target_value       = var.scalegate_target_value
    scale_out_cooldown = var.scalegate_scale_out_cooldown_s
    disable_scale_in   = true
    predefined_metric_specification {
      predefined_metric_type = var.scalegate_predefined_metric_type
    }
  }
}

# Scale in: one instance at a time, only after the tracked metric stayed at or below the plan's
# threshold for every one of the evaluation periods (missing data, an idle endpoint, counts as low).
resource "aws_appautoscaling_policy" "scale_in" {
  name               = "${local.name}-scale-in"
  policy_type        = "StepScaling"
  service_namespace  = aws_appautoscaling_target.variant.service_namespace
  resource_id        = aws_appautoscaling_target.variant.resource_id
  scalable_dimension = aws_appautoscaling_target.variant.scalable_dimension

  step_scaling_policy_configuration {
    adjustment_type         = "ChangeInCapacity"
    cooldown                = var.scalegate_scale_in_cooldown_s
    metric_aggregation_type = "Maximum"
    step_adjustment {
      metric_interval_upper_bound = "0"
      scaling_adjustment          = -1
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "scale_in" {
  alarm_name          = "${local.name}-scale-in"
  alarm_description   = "scalegate ${var.scalegate_model}: scale in by one instance (plan ${var.scalegate_plan_run_id})"
  namespace           = "AWS/SageMaker"
  metric_name         = var.scalegate_scale_in_metric_name
  dimensions          = local.dimensions
  statistic           = var.scalegate_scale_in_statistic
  period              = var.scalegate_scale_in_period_s
  evaluation_periods  = var.scalegate_scale_in_evaluation_periods
  datapoints_to_alarm = var.scalegate_scale_in_evaluation_periods
  threshold           = var.scalegate_scale_in_threshold
  comparison_operator = "LessThanOrEqualToThreshold"
  treat_missing_data  = "breaching"
  alarm_actions       = [aws_appautoscaling_policy.scale_in.arn]
}

# The alarms scalegate deploys beside the policy (validate compares them too).
resource "aws_cloudwatch_metric_alarm" "errors_5xx" {
  alarm_name          = "${local.name}-5xx"
  namespace           = "AWS/SageMaker"
  metric_name         = "Invocation5XXErrors"
  dimensions          = local.dimensions
  statistic           = "Sum"
  period              = 60
  evaluation_periods  = 5
  datapoints_to_alarm = 3
  threshold           = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  treat_missing_data  = "notBreaching"
}

resource "aws_cloudwatch_metric_alarm" "queue_saturation" {
  alarm_name          = "${local.name}-queue-saturation"
  alarm_description   = "503 queue_saturated at MAX_QUEUE_DEPTH=${var.scalegate_queue_max_depth}, counted as InvocationModelErrors"
  namespace           = "AWS/SageMaker"
  metric_name         = "InvocationModelErrors"
  dimensions          = local.dimensions
  statistic           = "Sum"
  period              = 60
  evaluation_periods  = 3
  datapoints_to_alarm = 2
  threshold           = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  treat_missing_data  = "notBreaching"
}

resource "aws_cloudwatch_metric_alarm" "concurrency_above_target" {
  alarm_name          = "${local.name}-concurrency-above-target"
  namespace           = "AWS/SageMaker"
  metric_name         = var.scalegate_scale_in_metric_name
  dimensions          = local.dimensions
  statistic           = var.scalegate_scale_in_statistic
  period              = 60
  evaluation_periods  = var.scalegate_above_target_periods
  datapoints_to_alarm = var.scalegate_above_target_periods
  threshold           = var.scalegate_target_value
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
}

# The container's own service time (dequeue to first audio byte), published by a container that
# follows the reference container's contract (infra/container/README.md); none without a measurement.
resource "aws_cloudwatch_metric_alarm" "service_time" {
  count               = var.scalegate_service_time_alarm_ms == null ? 0 : 1
  alarm_name          = "${local.name}-service-time"
  namespace           = "Scalegate/Container"
  metric_name         = "FirstChunkLatency"
  dimensions          = local.dimensions
  extended_statistic  = "p95"
  period              = 300
  evaluation_periods  = 3
  datapoints_to_alarm = 3
  threshold           = var.scalegate_service_time_alarm_ms
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
}

output "container_environment" {
  description = "what the model's container environment must hold"
  value       = { MAX_QUEUE_DEPTH = tostring(var.scalegate_queue_max_depth) }
}

output "scalegate_plan" {
  description = "the plan applied: run id and sha256 of the plan file"
  value       = { run_id = var.scalegate_plan_run_id, sha256 = var.scalegate_plan_sha256 }
}
