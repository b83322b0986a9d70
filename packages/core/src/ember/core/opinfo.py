"""Per-op test metadata (what PyTorch's OpInfo holds), attached to the op's one declaration.

NOTE [ The op table ]
An op is declared once, from one table row: its name, numpy implementation, dtype rule and
flags, and an `OpInfo` with what the tests need to know about it: the input range where it is
defined and well-conditioned (floats and integers apart), the dtypes each device accepts,
whether it takes `out=`, an independent float64 reference (hand-written formulas or
scipy.special, never the kernel's own numpy call path), sample calls per dtype and device,
and error calls with the exception type and message PyTorch gives. `declare(name, ..., info=)`
stores it on the `Op` (`op.info`); the tests of core, of the derivatives and of CUDA, and the
fuzz campaign (`ember.core.fuzz`), iterate over `registered_ops()` and read `op.info` instead
of keeping their own lists. An op without `info` is simply not covered by those generic tests.

Adding an elementwise unary op is one row in `ember.core.ops.elementwise.UNARY` (with its
`OpInfo`), one CUDA function in `cuda/kernels/elementwise.py`, one derivative entry in
`ember.autograd.derivatives.elementwise` (or `differentiable=False`); docs/architecture.md
walks through it. A family of ops in another module (special functions, fft ...) builds the
same `OpInfo` and passes it to `declare`.

Dtype rules (one vocabulary for unary, binary and other elementwise families):
- `PROMOTE`: PyTorch's `result_type` of the operands (a unary op keeps its input's dtype);
- `FLOAT`: promote, then integers and bool compute in the default float dtype (exp, div);
- `BOOL`: the result is bool (isnan, comparisons, logic);
- `INT64`: promote, then integers and bool accumulate in int64 (sum, prod).

Kinds: an `"elementwise"` op takes `n_inputs` broadcasting tensors then `attrs`; a
`"reduction"` is called as `op(input, dim, keepdim)` (its public function, `dim` None, an int or
a tuple), and its `ref(x, axis, keepdims)` is numpy's reduction signature. The `"indexing"` and
`"shape"` families (rows in `ember.core.opinfo_indexing` and `ember.core.opinfo_shape`) bring their
own `draw` (a hypothesis draw of one call) and a `ref` over host copies that returns the expected
value and dtype or raises `Invalid` with PyTorch's exception class (`ember.core.fuzz_family`). Layers
above core add families of their own (conv, pool, loss, linalg: `ember.nn.fuzz_families`, whose rows
also check first derivatives through `grad`) with `ember.core.fuzz_family.register`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from ember.core import dtypes

__all__ = ["PROMOTE", "FLOAT", "BOOL", "INT64", "result_dtype", "Sample", "ErrorInput", "OpInfo", "ALL_DTYPES",
           "FLOAT_DTYPES", "INT_DTYPES", "ops_with_info"]

PROMOTE = "promote"
FLOAT = "float"
BOOL = "bool"
INT64 = "int64"

ALL_DTYPES = tuple(d for d in dtypes.ALL if d is not dtypes.complex32)  # complex32 computes a few ops only
FLOAT_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
INT_DTYPES = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
Range = tuple[float, float]


def result_dtype(rule: str, *operands) -> dtypes.dtype:
    """The dtype an elementwise op of `rule` returns for `operands` (tensors and Python scalars)."""
    if rule == BOOL:
        return dtypes.bool
    dt = dtypes.result_type(*operands)
    if rule == FLOAT and not dt.is_floating_point and not dt.is_complex:
        return dtypes.get_default_dtype()
    if rule == INT64 and not dt.is_floating_point and not dt.is_complex:
        return dtypes.int64
    return dt


@dataclass(frozen=True)
class Sample:
    """One call of an op: `op(*args, **kwargs)`."""

    args: tuple
    kwargs: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        parts = [_short(a) for a in self.args] + [f"{k}={_short(v)}" for k, v in self.kwargs.items()]
        return f"Sample({', '.join(parts)})"


@dataclass(frozen=True)
class ErrorInput:
    """A call that must raise `exc` with a message matching the regular expression `match`."""

    sample: Sample
    exc: type[BaseException]
    match: str


@dataclass(frozen=True)
class OpInfo:
    """What the tests know about one op (see NOTE [ The op table ]).

    `domain` and `int_domain` give one (low, high) range per tensor input (one pair for all
    inputs is accepted); `grad_domain` is the range for finite differences (away from kinks).
    `ref` takes float64 numpy arrays (or Python scalars) and returns the float64 result; `int_ref`
    takes int64 arrays and returns the exact integer result where floats would round (division).
    `samples(info, dtype, device)` and `errors(device)` yield `Sample`s and `ErrorInput`s; `attrs`
    are the positional attributes after the tensor inputs (an activation's `negative_slope`);
    `invalid(*args)` names what makes a call with valid types and shapes an error all the same
    (an integer division by zero), for the fuzz campaign.
    """

    rule: str = PROMOTE
    kind: str = "elementwise"
    n_inputs: int = 1
    ref: Callable | None = None
    int_ref: Callable | None = None
    domain: tuple[Range, ...] | Range | None = None
    int_domain: tuple[Range, ...] | Range | None = None
    grad_domain: tuple[Range, ...] | Range | None = None
    dtypes: Mapping[str, tuple[dtypes.dtype, ...]] = field(
        default_factory=lambda: {"cpu": ALL_DTYPES, "cuda": tuple(d for d in ALL_DTYPES if d is not dtypes.bfloat16)})
    supports_out: bool = True
    bool_result: dtypes.dtype | None = None  # what a bool input gives where not bool (square is pow(x, 2): int64)
    public: bool = False  # `ember.core.<name>` takes the op's positional signature (else: call the op)
    number_input: bool = False  # a Python number is accepted as `input` (torch.add(2, t)), not only as `other`
    attrs: tuple = ()
    samples: Callable[[OpInfo, dtypes.dtype, str], Iterable[Sample]] | None = None
    errors: Callable[[str], Iterable[ErrorInput]] | None = None
    invalid: Callable[..., str | None] | None = None  # (*args) -> why PyTorch refuses this call, or None
    draw: Callable | None = None  # (hypothesis draw, strategies) -> a fuzz Case (families other than elementwise)
    call: Callable | None = None  # (module, *args, **kwargs): the call in ember.core or torch, when not M.<name>
    grad: Callable | None = None  # (case, hargs, hkw, args, kwargs, result) -> why the gradient is wrong, or None

    def range_of(self, i: int, dtype: dtypes.dtype, *, grad: bool = False) -> Range | None:
        """The (low, high) range of tensor input `i` for `dtype` (None: the caller's default)."""
        if grad:
            spec = self.grad_domain if self.grad_domain is not None else self.domain
        else:
            spec = self.domain if dtype.is_floating_point else self.int_domain
        if spec is None:
            return None
        return spec if isinstance(spec[0], int | float) else spec[i]

    def dtypes_for(self, device_type: str) -> tuple[dtypes.dtype, ...]:
        return tuple(self.dtypes.get(device_type, ()))

    def sample_inputs(self, dtype: dtypes.dtype, device: str = "cpu") -> Iterator[Sample]:
        if self.samples is None:
            return iter(())
        return iter(self.samples(self, dtype, device))

    def error_inputs(self, device: str = "cpu") -> Iterator[ErrorInput]:
        if self.errors is None:
            return iter(())
        return iter(self.errors(device))


def ops_with_info(predicate: Callable[[OpInfo], bool] | None = None) -> dict[str, object]:
    """Every registered op that carries an `OpInfo` (and satisfies `predicate`), by name, sorted."""
    from ember.core.dispatch import registered_ops

    return {n: o for n, o in sorted(registered_ops().items())
            if o.info is not None and (predicate is None or predicate(o.info))}


# --- sample generators shared by the elementwise families -----------------------------------
_DEFAULT_FLOAT = (-4.0, 4.0)
_BROADCASTS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 1, 4), (3, 1)), ((), (3,)),
               ((0, 3), (3,)), ((), ())]


def _bounds(info: OpInfo, i: int, dtype: dtypes.dtype) -> Range:
    r = info.range_of(i, dtype)
    if r is not None:
        return r
    if dtype.is_floating_point:
        return _DEFAULT_FLOAT
    return (0, 5) if dtype in (dtypes.uint8, dtypes.bool) else (-4, 5)


def unary_samples(info: OpInfo, dtype: dtypes.dtype, device: str = "cpu") -> Iterator[Sample]:
    """Contiguous, strided, transposed, 0-dim and empty inputs inside the op's domain."""
    from ember.core.creation import empty
    from ember.core.testing import make_tensor

    lo, hi = _bounds(info, 0, dtype)
    mk = dict(dtype=dtype, device=device, low=lo, high=hi)
    for noncontiguous in (False, True):
        yield Sample((make_tensor(3, 5, noncontiguous=noncontiguous, seed=7, **mk), *info.attrs))
    yield Sample((make_tensor(4, 3, seed=8, **mk).t(), *info.attrs))
    yield Sample((make_tensor((), seed=9, **mk), *info.attrs))
    yield Sample((empty(0, 3, dtype=dtype, device=device), *info.attrs))


def binary_samples(info: OpInfo, dtype: dtypes.dtype, device: str = "cpu") -> Iterator[Sample]:
    """Broadcasting pairs (incl. 0-dim and empty), strided and transposed operands, in the domain."""
    from ember.core.testing import make_tensor

    (alo, ahi), (blo, bhi) = _bounds(info, 0, dtype), _bounds(info, 1, dtype)

    def pair(sa, sb, seed, **kw):
        return (make_tensor(sa, dtype=dtype, device=device, low=alo, high=ahi, seed=seed, **kw),
                make_tensor(sb, dtype=dtype, device=device, low=blo, high=bhi, seed=seed + 1, **kw))

    for i, (sa, sb) in enumerate(_BROADCASTS):
        yield Sample(pair(sa, sb, i))
    yield Sample(pair((3, 4), (3, 4), 20, noncontiguous=True))
    a, b = pair((4, 3), (4, 3), 21)
    yield Sample((a.t(), b.t()))


def _short(v) -> str:
    shape = getattr(v, "shape", None)
    if shape is not None and hasattr(v, "dtype"):
        return f"Tensor{tuple(shape)}:{v.dtype}"
    return repr(v)
