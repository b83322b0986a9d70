"""The CPU generator's engine: PyTorch's Mersenne Twister, word for word, with its state in PyTorch's byte layout.

NOTE [ PyTorch's CPU stream ]
PyTorch's CPU generator is an MT19937 seeded with `init_genrand(seed mod 2**32)` (the seed itself is kept
whole, for `initial_seed()`), and every CPU sampler reads it through two draws: `random()`, one 32-bit word,
and `random64()`, two words, the first the high half. A seeded program draws the same numbers on ember as on
PyTorch when each sampler consumes the same words in the same order and transforms them the same way
(`ember.core.cpu_sampling`). numpy's `MT19937` bit generator is the same engine (its `random_raw` yields the
tempered words), so the words come from C; only the seeding goes through numpy's legacy `RandomState`, whose
seeding is `init_genrand`. PyTorch also keeps one cached normal draw of each precision (Box-Muller makes two
at a time); they are part of the state, and `get_state()` writes all of it in PyTorch's 5056-byte layout
(`CPUGeneratorImplState`), so a state saved by either library restores in the other. The engine's twist and
tempering run in compiled code (NOTE [ The engine in compiled code ]), in the samplers' own kernels; a few words
drawn before those are loaded come from numpy's engine (`MT19937._numpy_words`).
"""

from __future__ import annotations

import struct

from functools import cache

import numpy as np

__all__ = ["MT19937", "STATE_BYTES"]

_N = 624
# CPUGeneratorImplState: initial seed (u64), left, seeded (i32), next (u64), 624 u64 words, normal_x, normal_y,
# normal_rho (f64), normal_is_valid (i32, padded to 8), the float normal cache (f32), its flag (bool, padded to 4)
_HEAD = struct.Struct("<QiiQ")
_TAIL = struct.Struct("<dddi4xf?3x")
STATE_BYTES = _HEAD.size + 8 * _N + _TAIL.size  # 5056
_WORDS_AT = _HEAD.size


# at most this many words are drawn through numpy's engine while the compiled kernels are not loaded yet
_FEW = 64


@cache
def _numpy_engine() -> np.random.MT19937:
    """numpy's MT19937 bit generator, whose state `MT19937._numpy_words` sets before each draw."""
    return np.random.MT19937(0)


@cache
def _kernels():
    """`ember.core._sampling_kernels` (Numba), imported on the first draw."""
    from ember.core import _sampling_kernels

    return _sampling_kernels


class MT19937:
    """PyTorch's CPU engine: 32-bit words (`u32`), 64-bit draws (`u64`), and the normal caches; `key` (624 words)
    and `st[0]` (the next word's index, 624 when a twist is due) are what the compiled samplers draw from."""

    __slots__ = ("key", "st", "seed", "fresh", "next_double", "next_float", "words")

    def __init__(self, seed: int) -> None:
        self.st = np.zeros(1, np.int64)
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """`init_genrand(seed mod 2**32)`; the caches are emptied, as `manual_seed` does in PyTorch."""
        _, key, pos, *_ = np.random.RandomState(seed & 0xFFFFFFFF).get_state()
        self.key = key.astype(np.uint32)
        self.st[0] = pos
        self.seed = seed
        self.fresh = True  # PyTorch's `next` is 0 until the first word is drawn, 624 at a block's end later
        self.next_double = None
        self.next_float = None
        self.words = 0  # words drawn since seeding: a position that changes with every draw

    def spend(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The engine (`key`, `st`) for a kernel that draws the next `n` words."""
        self.fresh = False
        self.words += n
        return self.key, self.st

    def u32(self, n: int) -> np.ndarray:
        """The next `n` words (uint64 holding 32-bit values)."""
        if n <= _FEW and not _kernels.cache_info().currsize:
            return self._numpy_words(n)
        return _kernels().words(*self.spend(n), n)

    def u64(self, n: int) -> np.ndarray:
        """The next `n` 64-bit draws, each two words, the first the high half (PyTorch's `random64`)."""
        if 2 * n <= _FEW and not _kernels.cache_info().currsize:
            w = self._numpy_words(2 * n)
            return (w[0::2] << np.uint64(32)) | w[1::2]
        return _kernels().words64(*self.spend(2 * n), n)

    def _numpy_words(self, n: int) -> np.ndarray:
        """The next `n` words from numpy's MT19937, the same engine in C (its `random_raw`): a few words drawn before
        any compiled sampler ran (a DataLoader's seed) skip loading the compiled kernels, seconds in a fresh
        process (Numba's import and first cache load), for about 0.2 ms of state copies."""
        key, st = self.spend(n)
        engine = _numpy_engine()
        engine.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": int(st[0])}}
        w = engine.random_raw(n)
        after = engine.state["state"]
        key[:] = after["key"]
        st[0] = after["pos"]
        return w

    def state_bytes(self) -> bytes:
        pos = int(self.st[0])
        nxt = 0 if self.fresh else pos
        left = 1 if pos == _N else _N + 1 - pos
        head = _HEAD.pack(self.seed, left, 1, nxt)
        words = self.key.astype("<u8").tobytes()
        d, f = self.next_double, self.next_float
        tail = _TAIL.pack(0.0, 0.0 if d is None else d, 0.0, d is not None, 0.0 if f is None else f, f is not None)
        return head + words + tail

    def load(self, raw: bytes) -> None:
        """Restore from PyTorch's layout; RuntimeError where the engine's part is not a valid state."""
        seed, left, seeded, nxt = _HEAD.unpack_from(raw, 0)
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(raw, dtype="<u8", count=_N, offset=_WORDS_AT).astype(np.uint32)
        _, d, _, d_ok, f, f_ok = _TAIL.unpack_from(raw, _WORDS_AT + 8 * _N)
        self.key = key
        self.st[0] = _N if left == 1 else nxt
        self.seed = seed
        self.fresh = left == 1 and nxt == 0
        self.next_double = d if d_ok else None
        self.next_float = f if f_ok else None
        self.words += 1  # a restored state is a new position for anyone comparing positions
