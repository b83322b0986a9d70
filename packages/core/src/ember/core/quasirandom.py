"""`torch.quasirandom.SobolEngine`: Sobol' low-discrepancy sequences with Joe and Kuo's direction
numbers, the same points as PyTorch's, optionally scrambled (Owen's linear matrix scramble and a
digital shift, drawn from PyTorch's generator as PyTorch draws them).

NOTE [ Sobol' points ]: dimension d has 30 direction numbers v[d, j] (30-bit integers, MSB first).
Dimension 0's are 2^(29-j) (van der Corput); dimension d >= 1 starts from Joe and Kuo's m_1 ... m_s
(`_sobol_table`) and extends them by the recurrence of its primitive polynomial of degree s over
GF(2), which `_primitive_polys` enumerates in their order (by degree, then by value). Point k is the
XOR of the v[d, j] over the set bits j of k's Gray code k ^ (k >> 1), XOR the shift, over 2^30; so
any run of points is a handful of vectorised XORs, with no walk through the points before it.
"""

from __future__ import annotations

import base64
import functools
import zlib

import numpy as np

from ember.core import dtypes
from ember.core.random import Generator
from ember.core.tensor import Tensor

__all__ = ["SobolEngine"]

_MAXBIT = 30
_TORCH_MAXDIM = 21201  # PyTorch's table's dimensions: beyond them, its own refusal


def _mulmod(a: np.ndarray, b: int, p: np.ndarray, s: int) -> np.ndarray:
    """a * b mod p over GF(2) for arrays of polynomials `a`, `p` of degree s (bit i: coefficient of x^i)."""
    r = np.zeros_like(a)
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a = a << 1
        a ^= np.where((a >> s) & 1 == 1, p, 0)
    return r


def _mulmod_arr(a: np.ndarray, b: np.ndarray, p: np.ndarray, s: int) -> np.ndarray:
    """a * b mod p over GF(2), elementwise over arrays of polynomials."""
    r = np.zeros_like(a)
    for i in range(s):
        r ^= np.where((b >> i) & 1 == 1, a, 0)
        a = a << 1
        a ^= np.where((a >> s) & 1 == 1, p, 0)
    return r


def _xpow(e: int, p: np.ndarray, s: int) -> np.ndarray:
    """x^e mod p for each polynomial p of degree s (square and multiply)."""
    r = np.ones_like(p)
    base = _mulmod(np.ones_like(p), 2, p, s)  # x mod p
    while e:
        if e & 1:
            r = _mulmod_arr(r, base, p, s)
        base = _mulmod_arr(base, base, p, s)
        e >>= 1
    return r


def _prime_factors(n: int) -> list[int]:
    out, f = [], 2
    while f * f <= n:
        if n % f == 0:
            out.append(f)
            while n % f == 0:
                n //= f
        f += 1
    return out + ([n] if n > 1 else [])


@functools.cache
def _primitive_polys(count: int) -> tuple[int, ...]:
    """The first `count` primitive polynomials over GF(2) of degree >= 1, by degree then value: p is
    primitive when x has order exactly 2^s - 1 modulo p (which also makes p irreducible)."""
    out: list[int] = []
    s = 1
    while len(out) < count:
        order = (1 << s) - 1
        p = (1 << s) | (np.arange(1 << (s - 1), dtype=np.int64) << 1) | 1
        ok = _xpow(order, p, s) == 1
        for q in _prime_factors(order):
            ok &= _xpow(order // q, p, s) != 1
        out.extend(int(v) for v in p[ok])
        s += 1
    return tuple(out[:count])


@functools.cache
def _direction_numbers() -> np.ndarray:
    """v[d, j] for every dimension the table holds, (MAXDIM, 30) int64, already shifted to 30 bits."""
    from ember.core import _sobol_table as T

    polys = _primitive_polys(T.MAXDIM - 1)
    ms = np.frombuffer(zlib.decompress(base64.b64decode("".join(T.DATA))), dtype="<u2").astype(np.int64)
    v = np.zeros((T.MAXDIM, _MAXBIT), dtype=np.int64)
    v[0] = 1
    at = 0
    for d, p in enumerate(polys, 1):
        s = p.bit_length() - 1
        v[d, :s] = ms[at:at + s]
        at += s
        for j in range(s, _MAXBIT):  # Bratley and Fox's recurrence: m_j from the s before it
            new = v[d, j - s] ^ (v[d, j - s] << s)
            for k in range(1, s):
                if (p >> (s - k)) & 1:
                    new ^= v[d, j - k] << k
            v[d, j] = new
    assert at == ms.size, "the Sobol' table and the enumerated polynomials disagree on the degrees"
    return v << np.arange(_MAXBIT - 1, -1, -1, dtype=np.int64)


class SobolEngine:
    """A generator of Sobol' points in [0, 1)^dimension (PyTorch's `torch.quasirandom.SobolEngine`).

    Args:
        dimension: the points' dimension, 1 ... `MAXDIM`.
        scramble: scramble the points (a random lower-triangular binary matrix per dimension and a
            random digital shift, from `seed`).
        seed: the scrambling's seed (a generator of its own; without it the global one draws), so
            seeded scrambled points are PyTorch's.

    Raises:
        ValueError: `dimension` outside [1, MAXDIM].

    Example:
        >>> from ember.core import float64
        >>> from ember.core.quasirandom import SobolEngine
        >>> SobolEngine(2).draw(4, dtype=float64)
        tensor([[0.0000, 0.0000],
                [0.5000, 0.5000],
                [0.7500, 0.2500],
                [0.2500, 0.7500]], dtype=ember.float64)
    """

    MAXBIT = _MAXBIT
    MAXDIM = 1111  # the dimensions whose direction numbers ember ships (PyTorch's table goes to 21201)

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None) -> None:
        if isinstance(dimension, int | np.integer) and not 1 <= dimension <= _TORCH_MAXDIM:  # PyTorch's refusal
            raise ValueError(f"Supported range of dimensionality for SobolEngine is [1, {_TORCH_MAXDIM}]")
        if not isinstance(dimension, int | np.integer) or isinstance(dimension, bool) \
                or not 1 <= dimension <= self.MAXDIM:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]; got "
                             f"{dimension!r} (ember ships Joe and Kuo's direction numbers up to dimension "
                             f"{self.MAXDIM}; PyTorch's table goes to 21201)")
        self.dimension = int(dimension)
        self.scramble = scramble
        self.seed = seed
        v = _direction_numbers()[:self.dimension].copy()
        shift = np.zeros(self.dimension, dtype=np.int64)
        if scramble:
            v, shift = self._scrambled(v)
        self.sobolstate = Tensor._wrap(v)
        self.shift = Tensor._wrap(shift)
        self.quasi = Tensor._wrap(shift.copy())
        self._first_point = Tensor._wrap((shift / 2.0 ** self.MAXBIT).reshape(1, -1))
        self.num_generated = 0

    def _scrambled(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Owen's linear matrix scramble: bit p (MSB first) of each direction number becomes the XOR of
        its bits k <= p chosen by a random unit lower-triangular matrix; then a random digital shift."""
        from ember.core.random import randint

        g = None  # PyTorch's: without a seed, the global generator draws the scramble
        if self.seed is not None:
            g = Generator()
            g.manual_seed(self.seed)
        d, b = self.dimension, self.MAXBIT
        weights = 1 << np.arange(b - 1, -1, -1, dtype=np.int64)  # MSB first
        shift = randint(2, (d, b), generator=g)._np() @ (1 << np.arange(b, dtype=np.int64))  # shift bits: LSB first
        ltm = np.tril(randint(2, (d, b, b), generator=g)._np())
        ltm[:, np.arange(b), np.arange(b)] = 1
        bits = (v[:, :, None] >> np.arange(b - 1, -1, -1)) & 1  # (d, j, bit p), MSB first
        scrambled = np.einsum("dpk,djk->djp", ltm, bits) & 1
        return scrambled @ weights, shift

    def _points(self, start: int, n: int) -> np.ndarray:
        """Points start ... start + n - 1 as 30-bit integers, (n, dimension)."""
        k = np.arange(start, start + n, dtype=np.int64)
        gray = k ^ (k >> 1)
        out = np.broadcast_to(self.shift._np(), (n, self.dimension)).copy()
        v = self.sobolstate._np()
        for j in range(self.MAXBIT):
            out ^= np.where(((gray >> j) & 1)[:, None] == 1, v[:, j], 0)
        return out

    def draw(self, n: int = 1, out: Tensor | None = None, dtype=None) -> Tensor:
        """The next `n` points, (n, dimension), in `dtype` (default: the default float dtype)."""
        dt = dtypes.get_default_dtype() if dtype is None else dtype
        pts = self._points(self.num_generated, n)
        if n:
            self.quasi._np()[...] = pts[-1]
        self.num_generated += n
        r = Tensor._wrap((pts / 2.0 ** self.MAXBIT).astype(dt.np))
        if out is not None:
            return out.resize_(r.shape).copy_(r)
        return r

    def draw_base2(self, m: int, out: Tensor | None = None, dtype=None) -> Tensor:
        """The next 2^m points; the total drawn must stay a power of 2 (the sequence's balance)."""
        n = 2 ** m
        total = self.num_generated + n
        if total & (total - 1):
            raise ValueError("The balance properties of Sobol' points require n to be a power of 2. "
                             f"{self.num_generated} points have been previously generated, then: "
                             f"n={self.num_generated}+2**{m}={total}. If you still want to do this, please use "
                             "'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self) -> SobolEngine:
        """Back to the first point."""
        self.quasi._np()[...] = self.shift._np()
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Skip the next `n` points."""
        if n > 0:
            self.quasi._np()[...] = self._points(self.num_generated + n - 1, 1)[0]
        self.num_generated += n
        return self

    def __repr__(self) -> str:
        args = [f"dimension={self.dimension}"]
        if self.scramble:
            args.append("scramble=True")
        if self.seed is not None:
            args.append(f"seed={self.seed}")
        return f"SobolEngine({', '.join(args)})"
