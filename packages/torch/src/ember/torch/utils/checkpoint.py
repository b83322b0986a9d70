"""`torch.utils.checkpoint`: activation checkpointing (ember-autograd's; a segment's activations are
dropped in forward and recomputed in backward, with the RNG state the forward saw)."""

from ember.autograd.checkpoint import checkpoint, checkpoint_sequential, noop_context_fn

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]
