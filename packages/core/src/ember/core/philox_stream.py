"""numpy's Philox generator at a given (key, counter), re-keyed in place instead of built per draw.

NOTE [ Re-keying numpy's Philox ]
Every CPU draw reads a Philox stream keyed by the generator's seed from its counter (NOTE [ Philox streams ] in
ember.core.random). Building `np.random.Generator(np.random.Philox(key=, counter=))` for each draw costs more
than drawing a small tensor: `Philox.__init__` first makes a `SeedSequence` from fresh OS entropy, which the
given key then discards. Each thread keeps one Philox and its Generator instead, and a draw sets the bit
generator's documented `state` (counter, key, an emptied buffer): the stream a new Philox would give, bit for bit,
at about a quarter of the cost.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["philox_stream"]

_U64 = 1 << 64
_EMPTY_BUFFER = np.zeros(4, np.uint64)
_local = threading.local()


def philox_stream(key: int, offset: int) -> np.random.Generator:
    """A numpy Generator reading Philox keyed by `key` from counter `(0, offset mod 2**64, offset div 2**64, 0)`;
    valid until this thread's next call (NOTE [ Re-keying numpy's Philox ])."""
    gen = getattr(_local, "gen", None)
    if gen is None:
        gen = _local.gen = np.random.Generator(np.random.Philox(key=0))
    gen.bit_generator.state = {
        "bit_generator": "Philox",
        "state": {"counter": np.array([0, offset % _U64, offset // _U64, 0], np.uint64),
                  "key": np.array([key % _U64, key // _U64], np.uint64)},
        "buffer": _EMPTY_BUFFER, "buffer_pos": 4, "has_uint32": 0, "uinteger": 0}
    return gen
