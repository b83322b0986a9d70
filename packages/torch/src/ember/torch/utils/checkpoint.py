"""`torch.utils.checkpoint`: activation checkpointing (ember-autograd's; a segment's activations are
dropped in forward and recomputed in backward, with the RNG state the forward saw)."""

from ember.autograd.checkpoint import CheckpointFunction, checkpoint, checkpoint_sequential, noop_context_fn
from ember.autograd.checkpoint_support import (CheckpointError, DefaultDeviceType, check_backward_validity,
                                               detach_variable, get_device_states, set_checkpoint_debug_enabled,
                                               set_checkpoint_early_stop, set_device_states)

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn", "CheckpointFunction", "CheckpointError",
           "DefaultDeviceType", "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states", "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]
