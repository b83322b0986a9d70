"""`ember.jit.config`: the knobs of `compile`, read at every call (set them like torch._dynamo.config)."""

from __future__ import annotations

__all__ = ["cache_size_limit", "capture_call"]

# plans kept per compiled function (one per set of guards); past it, new guards run eagerly, with one warning
cache_size_limit: int = 8
# which call with the same guards is captured: the first runs eagerly, so lazily made state (an
# optimizer's momentum buffers, Adam's moments) exists before the capture, as tinygrad's TinyJit does
capture_call: int = 2
