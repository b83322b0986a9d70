"""`torch.utils.checkpoint`: activation checkpointing (ember-autograd's; a segment's activations are
dropped in forward and recomputed in backward, with the RNG state the forward saw); selective checkpointing's
policies and contexts (ember.torch.utils._selective_checkpoint)."""

from ember.autograd.checkpoint import CheckpointFunction, checkpoint, checkpoint_sequential, noop_context_fn
from ember.autograd.checkpoint_support import (CheckpointError, DefaultDeviceType, check_backward_validity,
                                               detach_variable, get_device_states, set_checkpoint_debug_enabled,
                                               set_checkpoint_early_stop, set_device_states)
from ember.torch.utils._selective_checkpoint import (CheckpointPolicy, SelectiveCheckpointContext,
                                                     create_selective_checkpoint_contexts)

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn", "CheckpointFunction", "CheckpointError",
           "DefaultDeviceType", "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states", "set_checkpoint_early_stop", "set_checkpoint_debug_enabled", "CheckpointPolicy",
           "SelectiveCheckpointContext", "create_selective_checkpoint_contexts"]
