"""`torch.distributed.algorithms.ddp_comm_hooks.default_hooks`: all-reduce, and all-reduce of a
float16 or bfloat16 copy of each gradient bucket (ember-distributed's `comm_hooks`)."""

from ember.distributed.comm_hooks import GradBucket, allreduce_hook, bf16_compress_hook, fp16_compress_hook

__all__ = ["GradBucket", "allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]
