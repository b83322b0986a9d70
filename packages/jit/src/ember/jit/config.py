"""`ember.jit.config`: the knobs of `compile`, read at every call (set them like torch._dynamo.config)."""

from __future__ import annotations

__all__ = ["background_compile", "cache_size_limit", "capture_call", "fuse", "fuse_parallel_min", "fuse_cache_dir",
           "fuse_libm_max", "optimizer_pass", "optimizer_reciprocal", "plan_memory", "retain_memory",
           "segment_depth_limit", "whole_plan"]

# plans kept per compiled function (one per set of guards); past it, new guards run eagerly, with one warning
cache_size_limit: int = 8
# a plan whose fused kernels must still compile replays unfused (eager's kernels, already compiled) while a thread
# compiles them, then swaps them in (NOTE [ Fused kernels compiled in the background ] in ember.jit.background): the
# first compiled step on an empty Numba cache no longer waits for them; the same bits either way
background_compile: bool = True
# which call with the same guards is captured: the first runs eagerly, so lazily made state (an
# optimizer's momentum buffers, Adam's moments) exists before the capture, as tinygrad's TinyJit does
capture_call: int = 2
# fuse elementwise chains of a plan into generated Numba kernels (NOTE [ What fuses ] in ember.jit.fusion). A
# fused exp, sin, tanh ... can differ from eager's numpy by an ulp or two (a loss after 100 steps by ~1e-6 relative,
# within the 1e-5 the JIT promises); False: replays are bitwise eager, every op its own kernel
fuse: bool = True
# a fused kernel runs parallel (Numba's prange) from this many output elements on, serial below (on 64x1024
# the parallel variant lost to the serial one on this 2-core machine: 1.3 ms wall against 0.7 ms)
fuse_parallel_min: int = 1 << 20
# where generated kernels and Numba's cache of them live (None: $EMBER_JIT_CACHE_DIR, else ~/.cache/ember/jit)
fuse_cache_dir: str | None = None
# above this many elements a group takes no libm function (exp, sin, tanh, sigmoid ...): without Intel's
# SVML, Numba calls them one value at a time, where numpy's own loops use SIMD and win (measured 3x on 64x1024)
fuse_libm_max: int = 4096
# an optimizer's `step()` in a plan runs as the optimizer's own one-pass update over all parameters
# (`_replay_step`: the update kernels called directly, no dispatch; NOTE [ Optimizer steps in a plan ] in
# ember.jit.graph) where it offers one; off: the step is called as in eager. Bitwise the same either way
optimizer_pass: bool = True
# opt-in, with `fuse` on: the one-pass Adam/AdamW step (its common case: no amsgrad, maximize or L2 decay)
# multiplies by 1 / sqrt(1 - beta2^t) where eager divides by its root (one division fewer per element: NCF's Adam
# kernels 163 -> 124 us). An ulp off eager on some elements each step, and training compounds it: after 100 steps
# the bench's losses were 1.6e-2 (LSTM), 3.3e-4 (NCF) and 2.6e-5 (GPT) relative from eager's, past the JIT's 1e-5;
# off (the default): eager's bits
optimizer_reciprocal: bool = False
# a replay's intermediates that never leave it (results of fused kernels and of mm/bmm) are written into one arena
# per plan, placed by liveness, instead of new arrays (NOTE [ The replay's arena ] in ember.jit.arena); the same bits
plan_memory: bool = True
# before the first plan runs, raise glibc's malloc trim and mmap thresholds once (process-wide), so memory a
# replay frees is reused by the next one instead of faulted in again (NOTE [ A replay's memory ] in ember.jit.memory)
retain_memory: bool = True
# a graph break splits a function into compiled segments, and a break in a segment splits that again, up to this
# many times deep (NOTE [ Compiled segments ] in ember.jit.segments); past it, the segment runs eagerly
segment_depth_limit: int = 8
# consecutive kernels of a plan that can all run inside Numba (fused groups, mm through Numba's np.dot, binary ops,
# views) are emitted as one generated Numba function, so the replay calls it once (NOTE [ The whole plan as one
# function ] in ember.jit.wholeplan); off: one Python call per kernel
whole_plan: bool = False
