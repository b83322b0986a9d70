"""The float32 functions (and float64 exp, tanh, sigmoid, silu) ember.jit's fused kernels inline: core's
(`ember.core.ops.vector_math`), which eager's kernels loop over too, so a fused group gives eager's bits
(NOTE [ Eager and fused transcendentals share one implementation ])."""

from __future__ import annotations

from ember.core.ops.vector_math import (cos32, exp32, exp64, log1p32, log2_32, log10_32, log32, log_sigmoid32,
                                        log_sigmoid64, sigmoid32, sigmoid64, silu32, silu64, sin32, tanh32, tanh64)

__all__ = ["exp32", "tanh32", "sin32", "cos32", "log32", "log2_32", "log10_32", "log1p32", "sigmoid32", "silu32",
           "exp64", "tanh64", "sigmoid64", "silu64", "log_sigmoid32", "log_sigmoid64"]
