"""`torch.distributed.algorithms.ddp_comm_hooks.quantization_hooks`: DDP gradient buckets averaged through
uint8, with a scale and zero point per rank or per run of elements (ember-distributed's `quantization_hooks`)."""

from ember.distributed.quantization_hooks import quantization_perchannel_hook, quantization_pertensor_hook

__all__ = ["quantization_pertensor_hook", "quantization_perchannel_hook"]
