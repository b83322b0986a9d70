"""The float32 functions ember.jit's fused kernels inline: core's (`ember.core.ops.vector_math`), which eager's
kernels loop over too, so a fused group gives eager's bits (NOTE [ Eager and fused transcendentals share one
implementation ])."""

from __future__ import annotations

from ember.core.ops.vector_math import (cos32, exp32, log1p32, log2_32, log10_32, log32, sigmoid32, silu32, sin32,
                                        tanh32)

__all__ = ["exp32", "tanh32", "sin32", "cos32", "log32", "log2_32", "log10_32", "log1p32", "sigmoid32", "silu32"]
