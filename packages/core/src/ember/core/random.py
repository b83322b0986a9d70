"""Random numbers: `Generator`, seeding, and the sampling ops (`rand`, `randn`, `normal_`, `multinomial`, ...).

The CPU generator is PyTorch's Mersenne Twister and its samplers PyTorch's (NOTE [ PyTorch's CPU stream ] in
`ember.core.mt19937`, `ember.core.cpu_sampling`): a seeded program draws PyTorch's numbers on the CPU.

NOTE [ Philox streams ]
A GPU generator's whole state is (seed, offset). Each draw of `numel` values takes the pair through
`philox_seed_offset(generator, numel)`, which returns it and advances `offset` by `numel` rounded
up to a whole Philox block (4 values); a CUDA kernel keys its Philox with that (seed, offset), and the few
host-side draws for a GPU generator read numpy's `Philox` at the same place (`philox_stream`), so every draw
owns a disjoint subsequence whatever it consumes. A given seed and sequence of draws therefore reproduces its
numbers (the CPU and CUDA streams differ from each other, as in PyTorch), and `manual_seed` resets the offset
to 0, so the same seed gives the same numbers whatever was drawn before.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import operator
from collections.abc import Iterator

import math

import numpy as np

from ember.core import dispatch as _dispatch
from ember.core import dtypes
from ember.core.creation import _numpy_filled, _plain_device, _size_of
from ember.core.device import CPU
from ember.core.device import device as _device
from ember.core.dispatch import composite, declare
from ember.core.methods import method
from ember.core.ops import elementwise as ew
from ember.core.ops import memfmt
from ember.core.ops._util import _CPP_TYPE_NAMES, broadcast_shapes, require_grad, warn_at_caller, write_out
from ember.core.ops.arguments import parsed
from ember.core.ops.numeric import not_implemented_for
from ember.core.ops.parser_errors import kwargs_order
from ember.core import cpu_sampling as cs
from ember.core.mt19937 import MT19937, STATE_BYTES
from ember.core.philox_stream import philox_stream
from ember.core.settings import contiguous_format, finfo
from ember.core.tensor import Tensor, describe, made_like

__all__ = ["Generator", "default_generator", "default_generator_for", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "fork_rng", "philox_seed_offset", "rand", "rand_like", "randn",
           "randn_like", "randint", "randint_like", "randperm", "normal", "bernoulli", "poisson", "binomial",
           "multinomial", "dropout_mask", "thread_safe_generator"]

_DEFAULT_SEED = 67280421310721  # PyTorch's default CPU seed

# The check a running `vmap(randomness="same")` installs (ember.autograd.func): the samplers whose draws depend on a
# tensor input (`bernoulli(p)`, `multinomial`, `poisson`, tensor `normal`, `binomial`, gamma) pass it their tensor
# operands, and it raises PyTorch's refusal when one of them is mapped.
batched_draw_guard: list = [None]


# What a running `vmap(randomness="different")` (ember.autograd.func) installs for `randn` and `normal(float, float,
# size)`: it runs its function once per sample, where PyTorch draws each sampler call once for the whole batch, and
# PyTorch's vectorised normal fill of the batch gives other numbers than one fill per sample. They hand it (shape,
# draw); it draws the batch's values at the first sample's call and gives each sample its slice.
batched_normal: list = [None]


# What a running `vmap(randomness="different")` installs for the in-place samplers (`normal_`, `uniform_`,
# `bernoulli_` ...): it gets the tensor filled and the sampler's tensor operands, and raises PyTorch's refusal when the
# filled tensor is not mapped (every sample would see the same draw).
inplace_draw_guard: list = [None]


def guard_inplace_draw(input: Tensor, name: str, *operands) -> None:
    """Hand an in-place sampler's target (and its tensor operands) to the running vmap's check, if any."""
    if inplace_draw_guard[0] is not None:
        inplace_draw_guard[0](input, name, *(t for t in operands if isinstance(t, Tensor)))


def _batch_draw(shape: tuple[int, ...], draw) -> Tensor:
    """The running vmap's `batched_normal` answer for a draw of `shape`; its own `draw` of the batch is a plain one."""
    batched = batched_normal[0]
    batched_normal[0] = None
    try:
        return batched(shape, draw)
    finally:
        batched_normal[0] = batched


def guard_batched_draw(*operands) -> None:
    """Hand a sampler's tensor operands to the running vmap's check, if any."""
    if batched_draw_guard[0] is not None:
        batched_draw_guard[0](*(t for t in operands if isinstance(t, Tensor)))
_U64 = 1 << 64


def _check_seed(seed) -> int:
    seed = int(seed)
    if not -(1 << 63) <= seed < _U64:
        raise ValueError("Overflow when unpacking long long")  # PyTorch reads the seed as a C long long
    return seed % _U64


class Generator:
    """A random-number generator for one device: on the CPU PyTorch's Mersenne Twister (NOTE [ PyTorch's CPU
    stream ]), so seeded programs draw PyTorch's numbers; on a GPU a Philox stream whose state is (seed, offset).

    Example:
        >>> g = Generator().manual_seed(42)
        >>> g.initial_seed()
        42
    """

    def __init__(self, device="cpu") -> None:
        d = _device(device)
        if d.type not in ("cpu", "cuda"):
            raise RuntimeError(_NO_GENERATOR.get(d.type, f"{d.type.upper()} device type not an accelerator."))
        self._setup(d)

    def _setup(self, d) -> None:
        """The state of a fresh generator of device `d` (a meta one only as a device's default generator)."""
        if d.type == "cuda" and d.index is None:
            d = _device("cuda", 0)
        elif d.type == "cpu":
            d = _device("cpu")  # PyTorch's CPU generator has no index: Generator("cpu:0").device is cpu
        self.device = d
        self._seed = _DEFAULT_SEED
        self._offset = 0
        self._mt = MT19937(_DEFAULT_SEED) if self.device.type == "cpu" else None

    def manual_seed(self, seed: int) -> Generator:
        """Reset the stream to the start of `seed`'s sequence; returns self. A Python int only, as PyTorch's C
        method (the module's `manual_seed` takes whatever `int()` takes)."""
        if isinstance(seed, np.integer):
            raise TypeError("an integer is required")
        if not isinstance(seed, int) or isinstance(seed, bool):
            cls = type(seed)
            name = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
            raise RuntimeError(f"manual_seed expected a long, but got {name}")
        self._seed = _check_seed(seed)
        self._offset = 0
        if self._mt is not None:
            self._mt.reseed(self._seed)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy and return the seed."""
        s = int.from_bytes(os.urandom(8), "little") >> 1
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def _position(self) -> tuple:
        """Where the stream stands: any draw changes it."""
        return (self._seed, self._offset) if self._mt is None else (self._mt.seed, self._mt.words)

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor: PyTorch's 5056-byte layout on the CPU, (seed, offset) as two little-endian
        uint64 on a GPU (PyTorch's 16 bytes)."""
        if self._mt is not None:
            return Tensor._wrap(np.frombuffer(self._mt.state_bytes(), dtype=np.uint8).copy())
        return Tensor._wrap(np.array([self._seed, self._offset], dtype="<u8").view(np.uint8))

    def set_state(self, new_state: Tensor) -> Generator:
        if not isinstance(new_state, Tensor):
            cls = type(new_state)
            name = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
            raise TypeError(f"expected a torch.ByteTensor, but got {name}")
        if new_state._dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._host_array()).reshape(-1)
        if self._mt is not None:
            if raw.size != STATE_BYTES:
                raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG "
                                   f"state size to be {raw.size}")
            self._mt.load(raw.tobytes())
            self._seed = self._mt.seed
            return self
        if raw.size != 16:
            raise RuntimeError(f"RNG state is wrong size; expected 16 bytes (seed, offset), got {describe(new_state)}")
        s, o = raw.view("<u8")
        self._seed, self._offset = int(s), int(o)
        return self

    def clone_state(self) -> Generator:
        """A new generator on the same device at this one's state: the two then draw the same numbers apart."""
        return Generator(self.device).set_state(self.get_state())

    def get_offset(self) -> int:
        """A GPU generator's Philox offset; PyTorch's CPU generator has none and says so."""
        if self._mt is not None:
            raise RuntimeError("CPU Generator does not use offset")
        return self._offset

    def set_offset(self, offset: int) -> Generator:
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise RuntimeError(f"manual_offset expected a long, but got {type(offset).__name__}")
        if self._mt is not None:
            raise RuntimeError("CPU Generator does not use offset")
        self._offset = offset
        return self

    def graphsafe_get_state(self) -> Generator:
        """A GPU generator at this one's state (ember has no CUDA graphs to capture); a CPU generator refuses,
        as PyTorch's."""
        if self._mt is not None:
            raise NotImplementedError("graphsafe_get_state is not supported in this Generator")
        return self.clone_state()

    def graphsafe_set_state(self, state: Generator) -> Generator:
        if not isinstance(state, Generator):
            raise TypeError(f"expected a Generator, but got {type(state).__name__}")
        if self._mt is not None:
            raise NotImplementedError("graphsafe_set_state is not supported in this Generator")
        return self.set_state(state.get_state())

    def __repr__(self) -> str:  # PyTorch's: its C++ class's default repr
        return f"<torch._C.Generator object at {id(self):#x}>"


_defaults: dict = {}
# PyTorch's words for a generator of a device type it has no backend for (the rest are "not an accelerator")
_NO_GENERATOR = {
    "xpu": "Cannot get XPU generator without ATen_xpu library.",
    "mps": "Cannot execute getNewGenerator() without MPS backend.",
    "mtia": "Cannot execute getNewGenerator() without MTIA backend.",
    "hpu": "Backend doesn`t support getNewGenerator()", "hip": "Backend doesn`t support getNewGenerator()",
    "privateuseone": "Please register PrivateUse1HooksInterface by `RegisterPrivateUse1HooksInterface` first.",
    "xla": "Cannot get XLA generator without torch_xla library. This error has occurred because you are trying to "
           "use some XLA functionality, but the XLA library has not been loaded by the dynamic linker. You must load "
           "xla libraries by `import torch_xla`"}
default_generator = Generator("cpu")
_defaults[default_generator.device] = default_generator


def default_generator_for(device) -> Generator:
    """The default generator of `device` (one per device, made on first use, seeded like the CPU's)."""
    d = _device(device)
    if d.type == "cuda" and d.index is None:
        d = _device("cuda", 0)
    g = _defaults.get(d)
    if g is None:
        g = Generator.__new__(Generator)
        g._setup(d)
        g = _defaults[d] = g.manual_seed(default_generator.initial_seed())
    return g


def manual_seed(seed: int) -> Generator:
    """Seed the default generators of every device; returns the CPU one."""
    seed = int(seed)  # PyTorch's Python wrapper: numpy ints, floats and numeric strings are seeds
    for g in _defaults.values():
        g.manual_seed(seed)
    return default_generator


def seed() -> int:
    """Seed every default generator from the operating system's entropy; returns the seed."""
    s = default_generator.seed()
    for g in _defaults.values():
        g.manual_seed(s)
    return s


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The CPU default generator's state (a uint8 tensor)."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str = "cuda") -> Iterator[None]:
    """Run a block and restore the CPU default generator's state, and that of `devices` (indices of
    `device_type`; default: each of its default generators in use), when it ends, so the block's draws
    leave the program's random stream where it was.

    Example:
        >>> _ = manual_seed(0)
        >>> with fork_rng():
        ...     _ = rand(3)
        >>> first = rand(2)
        >>> _ = manual_seed(0)
        >>> bool((rand(2) == first).all())
        True
    """
    if not enabled:
        yield
        return
    if devices is None:
        gens = [g for d, g in _defaults.items() if d.type == device_type]
    else:
        gens = [default_generator_for(_device(device_type, d) if isinstance(d, int) else d) for d in devices]
    gens.append(default_generator)
    states = [(g, g.get_state()) for g in gens]
    try:
        yield
    finally:
        for g, state in states:
            g.set_state(state)


def philox_seed_offset(generator: Generator | None, numel: int, device="cpu") -> tuple[int, int]:
    """(seed, offset) for a draw of `numel` values; advances the generator (NOTE [ Philox streams ])."""
    if generator is None and (device is CPU or device == "cpu"):  # the CPU's default generator, nothing to check
        g = default_generator
    else:
        g = generator if generator is not None else default_generator_for(device)
        if g.device.type != _device(device).type:
            raise RuntimeError(f"Expected a '{_device(device).type}' device type for generator but found "
                               f"'{g.device.type}'")
    out = (g._seed, g._offset)
    g._offset += (int(numel) + 3) // 4 * 4
    return out


def _checked(generator: Generator | None, device) -> Generator:
    """`generator`, or the device's default one; RuntimeError for a generator of another device type."""
    if generator is None:
        return default_generator if (device is CPU or device == "cpu") else default_generator_for(device)
    if generator.device.type != _device(device).type:
        raise RuntimeError(f"Expected a '{_device(device).type}' device type for generator but found "
                           f"'{generator.device.type}'")
    return generator


def cpu_engine(generator: Generator | None) -> MT19937:
    """The Mersenne Twister a CPU draw reads: `generator`'s, or the default CPU generator's."""
    return _checked(generator, CPU)._mt


def _fill_in_order(x: Tensor, values: np.ndarray) -> Tensor:
    """Write `values` (drawn in PyTorch's order) into x: memory order for a strided tensor."""
    view = cs.iteration_order(x._np())
    view[...] = values.reshape(view.shape)
    return x


def _draw_into(x: Tensor, draw) -> Tensor:
    """`draw(out)` into x: a kernel writes a contiguous x's memory itself (`out`, 1-D) where its dtype allows,
    otherwise its values are written in PyTorch's order."""
    a = x._np()
    if not (a.flags.c_contiguous and a.flags.writeable):
        return _fill_in_order(x, draw(None))
    flat = a.reshape(-1)
    values = draw(flat)
    if values is not flat:
        flat[...] = values
    return x


# PyTorch's refusals of an integer or bool tensor, per sampler: a kernel with no instance for the dtype, or a sentence
_NOT_FOR_INTEGERS = {"uniform_": "check_uniform_bounds", "normal_": "normal_kernel_cpu",
                     "log_normal_": "log_normal_cpu", "exponential_": "Exponential", "cauchy_": "Cauchy"}


def _work_dtype(x: Tensor, op: str):
    if not x._dtype.is_floating_point:
        refusal = _NOT_FOR_INTEGERS.get(op)
        if refusal is None or x._dtype.is_complex:
            raise TypeError(f'"{op}" not implemented for \'{x._dtype.name}\'; got {describe(x)}')
        if refusal in ("Exponential", "Cauchy"):
            names = dtypes.TORCH_NAMES if refusal == "Exponential" else _CPP_TYPE_NAMES
            raise RuntimeError(f"{refusal} distribution is a continuous probability distribution. dtype must be a "
                               f"floating point but you specified {names[x._dtype.name]}")
        raise not_implemented_for(refusal, x._dtype)
    return np.float64 if x._dtype is dtypes.float64 else np.float32


# --- in-place sampling primitives -------------------------------------------------------------
_uniform = declare("uniform_", mutates=(0,), differentiable=False)


@_uniform.register("cpu")
def _uniform_cpu(x, low=0.0, high=1.0, *, generator=None):
    _work_dtype(x, "uniform_")
    g = cpu_engine(generator)
    return _draw_into(x, lambda out: cs.uniform(g, x.numel(), x._dtype.np, low, high, out))


_normal = declare("normal_", mutates=(0,), differentiable=False)


@_normal.register("cpu")
def _normal_cpu(x, mean=0.0, std=1.0, *, generator=None):
    _work_dtype(x, "normal_")
    g = cpu_engine(generator)
    contiguous = x._np().flags.c_contiguous
    return _draw_into(x, lambda out: cs.normal(g, x.numel(), x._dtype.np, contiguous, mean, std, out))


_bernoulli = declare("bernoulli_", mutates=(0,), differentiable=False, mixed_devices=True)


@_bernoulli.meta
def _bernoulli_meta(x, p=0.5, *, generator=None) -> None:
    """A tensor `p` broadcasts to `x` (it is not the other way round), for every device."""
    if isinstance(p, Tensor):
        try:
            ok = np.broadcast_shapes(p._shape, x._shape) == x._shape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"bernoulli_: p can't be broadcast to self; got {describe(p)} and {describe(x)}")


@_bernoulli.register("cpu")
def _bernoulli_cpu(x, p=0.5, *, generator=None):
    g = cpu_engine(generator)
    if not isinstance(p, Tensor):
        return _draw_into(x, lambda out: cs.bernoulli_scalar(g, x.numel(), float(p)))
    a = x._np()
    probs = np.broadcast_to(np.asarray(p._host_array()), a.shape)
    if not a.flags.c_contiguous and a.ndim > 1:  # p is read in x's memory order
        probs = probs.transpose(cs.memory_axes(a))
    return _fill_in_order(x, cs.bernoulli_tensor(g, np.ascontiguousarray(probs)))


_exponential = declare("exponential_", mutates=(0,), differentiable=False)


@_exponential.register("cpu")
def _exponential_cpu(x, lambd=1.0, *, generator=None):
    _work_dtype(x, "exponential_")
    return _fill_in_order(x, cs.exponential(cpu_engine(generator), x.numel(), lambd))


_random = declare("random_", mutates=(0,), differentiable=False)


@_random.register("cpu")
def _random_cpu(x, low, high, *, generator=None, full_range=False):
    """`random_(low, high)`, or with `full_range` `random_()` (PyTorch's other kernel: high is the dtype's range, and
    a value takes a 64-bit draw for int64 and float64 only)."""
    g = cpu_engine(generator)
    if full_range:
        wide = x._dtype is dtypes.int64 or x._dtype is dtypes.float64
        return _draw_into(x, lambda out: cs.random_full(g, x.numel(), np.int64, high, wide))
    return _draw_into(x, lambda out: cs.random_from_to(g, x.numel(), low, high, out))


_cauchy = declare("cauchy_", mutates=(0,), differentiable=False)


@_cauchy.register("cpu")
def _cauchy_cpu(x, median=0.0, sigma=1.0, *, generator=None):
    _work_dtype(x, "cauchy_")
    return _fill_in_order(x, cs.cauchy(cpu_engine(generator), x.numel(), median, sigma))


_log_normal = declare("log_normal_", mutates=(0,), differentiable=False)


@_log_normal.register("cpu")
def _log_normal_cpu(x, mean=1.0, std=2.0, *, generator=None):
    _work_dtype(x, "log_normal_")
    return _fill_in_order(x, cs.log_normal(cpu_engine(generator), x.numel(), mean, std))


_geometric = declare("geometric_", mutates=(0,), differentiable=False)


@_geometric.register("cpu")
def _geometric_cpu(x, p, *, generator=None):
    return _fill_in_order(x, cs.geometric(cpu_engine(generator), x.numel(), p))


# --- the public in-place methods --------------------------------------------------------------
def _generator_arg(op: str, generator) -> None:
    """PyTorch's parser TypeError for a `generator=` that is not a Generator."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{op}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}")


def _overloads_generator_arg(op: str, generator, positional: tuple, signatures: str, **keywords) -> None:
    """PyTorch's parser TypeError for a non-Generator `generator=` to an op of several overloads: the positional
    arguments' types, the keywords given (None ones left out; each followed by ", " when no positional is, as
    PyTorch prints them) and every overload in `signatures`."""
    if generator is None or isinstance(generator, Generator):
        return
    kws = [f"generator={type(generator).__name__}"]
    kws += [f"{k}={_parser_type_name(v)}" for k, v in keywords.items() if v is not None]
    got = ", ".join([type(a).__name__ for a in positional] + kws) if positional else "".join(f"{k}, " for k in kws)
    raise TypeError(f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    f"{signatures}")


def _parser_type_name(v) -> str:
    """A keyword's type as PyTorch's parser names it (`torch.dtype`, `torch.device`, `Tensor`, `int` ...)."""
    if isinstance(v, dtypes.dtype):
        return "torch.dtype"
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


# PyTorch's defaults that its parser does not list among the arguments given: a caller's own 0.5 or 1.0 is another
# float object, so `p is _P_HALF` tells the default apart
_P_HALF, _STD_ONE = 0.5, 1.0
_BERNOULLI_OVERLOADS = (" * (Tensor input, *, torch.Generator generator = None, Tensor out = None)\n"
                        " * (Tensor input, float p, *, torch.Generator generator = None)\n")
_BERNOULLI_INPLACE_OVERLOADS = (" * (Tensor p, *, torch.Generator generator = None)\n"
                                " * (float p = 0.5, *, torch.Generator generator = None)\n")
_RANDOM_OVERLOADS = (" * (*, torch.Generator generator = None)\n{}"
                     " * (int from, int to, *, torch.Generator generator = None)\n"
                     " * (int to, *, torch.Generator generator = None)\n")


@method
def uniform_(input: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Generator | None = None,
             **kwargs) -> Tensor:
    """Fill with numbers drawn uniformly from [a, b) (`from=`/`to=` are accepted too)."""
    guard_inplace_draw(input, "uniform")
    low, high = kwargs.pop("from", a), kwargs.pop("to", b)
    if kwargs:
        raise TypeError(f"uniform_() got unexpected keyword arguments {sorted(kwargs)}")
    _generator_arg("uniform_", generator)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low:g} > to={high:g}")
    _uniform(_pairs(input), float(low), float(high), generator=generator)
    return input


@method
def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with numbers drawn from N(mean, std**2)."""
    guard_inplace_draw(input, "normal")
    _generator_arg("normal_", generator)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    _normal(_pairs(input), float(mean), _pair_std(input, float(std)), generator=generator)
    return input


def _check_p(p) -> None:
    a = np.asarray(p._host_array() if isinstance(p, Tensor) else p, dtype=np.float64)
    if ((a < 0) | (a > 1) | np.isnan(a)).any():
        if isinstance(p, Tensor):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                               "be improved?  If so, please report an enhancement request to PyTorch.)")
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={float(p):g}")


@method
def bernoulli_(input: Tensor, p=_P_HALF, *, generator: Generator | None = None) -> Tensor:
    """Fill with 1 with probability `p` (a number or a tensor broadcast to `input`), else 0."""
    guard_inplace_draw(input, "bernoulli", p)
    guard_batched_draw(p)
    _overloads_generator_arg("bernoulli_", generator, () if p is _P_HALF else (p,), _BERNOULLI_INPLACE_OVERLOADS)
    _check_p(p)
    return _bernoulli(input, p, generator=generator)


@method
def exponential_(input: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with numbers drawn from the exponential distribution of rate `lambd`."""
    guard_inplace_draw(input, "exponential")
    _generator_arg("exponential_", generator)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={float(lambd):g}")
    return _exponential(input, float(lambd), generator=generator)


def _default_high(dt) -> int:
    if dt.is_floating_point:
        return (1 << {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[dt.name]) + 1
    if dt is dtypes.bool:
        return 2
    return int(np.iinfo(dt.np).max) + 1


@method
def random_(input: Tensor, *args, generator: Generator | None = None, **kwargs) -> Tensor:
    """Fill with integers from [from, to): `random_(to)`, `random_(from, to)`, or the dtype's full range."""
    guard_inplace_draw(input, "random")
    if generator is not None and not isinstance(generator, Generator):
        if len(args) == 2:  # the one overload of two positionals names the bad argument
            _generator_arg("random_", generator)
        why = "      didn't match because some of the keywords were incorrect: generator\n" if len(args) == 1 else ""
        _overloads_generator_arg("random_", generator, args, _RANDOM_OVERLOADS.format(why))
    low, high = 0, None
    if len(args) == 1:
        high = args[0]
    elif len(args) == 2:
        low, high = args
    elif args:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    low, high = kwargs.pop("from", low), kwargs.pop("to", high)
    if kwargs:
        raise TypeError(f"random_() got unexpected keyword arguments {sorted(kwargs)}")
    if high is None:
        _random_dtype(input._dtype, "random_kernel_cpu")
        return _random(input, 0, _default_high(input._dtype), generator=generator, full_range=True)
    return _random(input, *_from_to(input._dtype, int(low), int(high)), generator=generator)


def _random_dtype(dt, kernel: str) -> None:
    """PyTorch's refusals of a dtype `random_` has no kernel for (complex, the 8-bit floats; uint16/32/64 have only
    the bounded one)."""
    if dt.is_complex and kernel != "random_kernel_cpu":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if dt.is_complex or (dt.is_floating_point and dt.name not in _FLOAT_BOUNDS) or (
            kernel == "random_kernel_cpu" and dt in dtypes.UNSIGNED_WIDE):
        raise not_implemented_for(kernel, dt)


# PyTorch's C++ names of the floating types in random_'s bound checks, and their significands' bits
_FLOAT_BOUNDS = {"float16": ("c10::Half", 11), "bfloat16": ("c10::BFloat16", 8), "float32": ("float", 24),
                 "float64": ("double", 53)}


def _as_float_int(dt, v: int) -> int:
    """`v` converted to the floating dtype `dt` and back to an integer, as PyTorch's casts round it (to float32
    first for the 16-bit types); a value the dtype cannot hold comes back as x86's answer, -2**63."""
    f = float(np.float64(v) if dt is dtypes.float64 else np.float32(v))
    if dt is not dtypes.float64 and dt is not dtypes.float32:
        f = float(np.array(f, np.float32).astype(dt.np))
    return int(f) if math.isfinite(f) else -(1 << 63)


def _from_to(dt, low: int, high: int) -> tuple[int, int]:
    """`random_(from, to)`'s bounds as PyTorch takes them: from < to; for a floating dtype, a bound that the
    dtype rounds past itself moved inward to a value the dtype holds; both within the dtype's range (else its
    RuntimeError), with PyTorch's warning where a float cannot hold every integer between them."""
    if not (-(1 << 63) <= low < 1 << 63 and -(1 << 63) <= high < 1 << 63):
        raise ValueError("Overflow when unpacking long long")  # PyTorch's parser reads both as C long longs
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    _random_dtype(dt, "random_update_from_to")
    if dt.is_floating_point:
        name, digits = _FLOAT_BOUNDS[dt.name]
        if (up := _as_float_int(dt, low + 1)) < low:
            low = up + (1 << ((abs(low + 1)).bit_length() - 1 - digits + 1))
        if (down := _as_float_int(dt, high - 1)) >= high:
            high = down - (1 << ((abs(high - 1)).bit_length() - 1 - digits + 1))
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
                               f"from={low} >= to={high}")
        info = finfo(dt)
        lo, hi = info.min, info.max
    else:
        name = _CPP_TYPE_NAMES[dt.name]
        info = np.iinfo(dt.np) if dt is not dtypes.bool else None
        lo, hi = (0, 1) if info is None else (int(info.min), int(info.max))
    for value, what in ((low, "from"), (high - 1, "to - 1")):
        if not lo <= value <= hi:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if dt.is_floating_point:
        for value, what, line in ((low, "from", 110), (high - 1, "to - 1", 111)):
            if not -(1 << digits) <= value <= 1 << digits:
                warn_at_caller(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                               f"{name} can support discrete uniform distribution only within this range. This "
                               "warning will become an error in version 1.7 release, please fix the code in advance "
                               f"(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
                               f"DistributionTemplates.h:{line}.)")
    return low, high


@method
def cauchy_(input: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with numbers drawn from the Cauchy distribution."""
    guard_inplace_draw(input, "cauchy")
    _generator_arg("cauchy_", generator)
    return _cauchy(input, float(median), float(sigma), generator=generator)


@method
def log_normal_(input: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with numbers whose logarithm is drawn from N(mean, std**2)."""
    guard_inplace_draw(input, "log_normal")
    _generator_arg("log_normal_", generator)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return _log_normal(input, float(mean), float(std), generator=generator)


@method
def geometric_(input: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success."""
    guard_inplace_draw(input, "geometric")
    _generator_arg("geometric_", generator)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={float(p):g}")
    return _geometric(input, float(p), generator=generator)


# --- creating random tensors -----------------------------------------------------------------
def _size(args, size, op: str = "empty") -> tuple[int, ...]:
    flat = (size,) if size is not None else args
    flat = tuple(flat[0]) if len(flat) == 1 and isinstance(flat[0], tuple | list) else flat
    for s in flat:
        if s.__class__ is not int:  # PyTorch's TypeError for a float or tensor size (`randn(2, 2.5)`, `rand(t)`)
            return _size_of(() if size is not None else args, size, op)
    return flat


def _size_kwarg(op: str, kwargs: dict):
    size = kwargs.pop("size", None)
    if kwargs:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return size


def _pairs(t: Tensor) -> Tensor:
    """A complex tensor as its (real, imaginary) float view, which the samplers fill; others as they are."""
    if t._dtype.is_complex:
        from ember.core.ops.complex import view_as_real

        return view_as_real(t)
    return t


def _pair_std(t: Tensor, std: float) -> float:
    """PyTorch's complex normal: real and imaginary parts each of variance std**2 / 2, so E|z|^2 = std**2."""
    return std * math.sqrt(0.5) if t._dtype.is_complex else std


def _new(shape, dtype, device, out: Tensor | None):
    from ember.core.creation import empty

    if out is not None:
        if tuple(out._shape) != tuple(shape):
            out.resize_(shape)
        return out
    return empty(shape, dtype=dtype, device=device)


def _fresh(shape: tuple, dtype, device, out, layout, pin_memory: bool, kinds: frozenset) -> Tensor | None:
    """A new row-major CPU tensor of a dtype in `kinds` that a factory's sampler kernel fills straight, without
    its in-place op, while nothing watches a fresh tensor's fill (`dispatch.bare`: only autograd's hook, which
    ignores it); None where the factory's general path applies."""
    if not (_dispatch.bare and out is None and layout is None and not pin_memory and _plain_device(device)):
        return None
    t = _numpy_filled(shape, dtype, None)
    return t if t is not None and t._dtype in kinds else None


_SAMPLED_FRESH = frozenset((dtypes.float32, dtypes.float64, dtypes.float16))
_INT64 = frozenset((dtypes.int64,))


def _filled(t: Tensor, values: np.ndarray, flat: np.ndarray, requires_grad: bool) -> Tensor:
    """A fresh tensor after its kernel wrote `flat` (its memory); `values` where a 16-bit draw made them apart."""
    if values is not flat:
        flat[...] = values
    return require_grad(t) if requires_grad else t


def _finish(t: Tensor, requires_grad: bool, out: Tensor | None) -> Tensor:
    """A factory's result: a tensor it made is at version 0, as PyTorch's (its draw wrote it in place)."""
    if out is None:
        t._storage.version = 0
    return require_grad(t) if requires_grad else t


def _sized_dtype(op: str, size: tuple, kwargs: dict, dtype, generator=None) -> None:
    """rand/randn's `dtype` and `generator` as PyTorch's parser takes them (a torch.dtype or a Python type; a
    Generator); else its TypeError listing both overloads."""
    dtype_ok = dtype is None or isinstance(dtype, dtypes.dtype) or any(dtype is t for t in (float, int, bool, complex))
    if dtype_ok and (generator is None or isinstance(generator, Generator)):
        return
    got = ", ".join([type(a).__name__ for a in size] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
                    + ([] if dtype is None else [f"dtype={type(dtype).__name__}"])
                    + ([] if generator is None else [f"generator={type(generator).__name__}"]))
    sigs = "".join(f" * (tuple of ints size, *, {gen}{_FACTORY_KW})\n" for gen in ("torch.Generator generator, ", ""))
    raise TypeError(f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:\n{sigs}")


def _no_size(op: str, other_arguments: bool) -> None:
    """PyTorch's parser's TypeError for `rand()`/`randn()` without a size: with nothing at all, no signature
    matches; with keyword arguments, the size is missing."""
    if other_arguments:
        raise TypeError(f'{op}() missing 1 required positional arguments: "size"')
    sigs = "".join(f" * (tuple of ints size, *, {gen}{_FACTORY_KW})\n" for gen in ("torch.Generator generator, ", ""))
    raise TypeError(f"{op}() received an invalid combination of arguments - got (), but expected one of:\n{sigs}")


@composite("rand")
def rand(*size, generator: Generator | None = None, out: Tensor | None = None, dtype=None, layout=None, device=None,
         requires_grad: bool = False, pin_memory: bool = False, **kwargs) -> Tensor:
    """Numbers drawn uniformly from [0, 1) in a tensor of `size`.

    Example:
        >>> rand(2, 3).shape
        ember.Size([2, 3])
    """
    if not size and "size" not in kwargs:
        _no_size("rand", kwargs or generator is not None or out is not None or dtype is not None or layout is not None
                 or device is not None or requires_grad or pin_memory)
    _sized_dtype("rand", size, kwargs, dtype, generator)
    shape = _size(size, _size_kwarg("rand", kwargs), "rand")
    if (t := _fresh(shape, dtype, device, out, layout, pin_memory, _SAMPLED_FRESH)) is not None:
        flat = t._storage._raw.reshape(-1)
        return _filled(t, cs.uniform(cpu_engine(generator), flat.size, flat.dtype, 0.0, 1.0, flat), flat,
                       requires_grad)
    t = _new(shape, dtype, device, out)
    _uniform(_pairs(t), 0.0, 1.0, generator=generator)
    return _finish(t, requires_grad, out)


@composite("randn")
def randn(*size, generator: Generator | None = None, out: Tensor | None = None, dtype=None, layout=None,
          device=None, requires_grad: bool = False, pin_memory: bool = False, **kwargs) -> Tensor:
    """Numbers drawn from the standard normal distribution in a tensor of `size`."""
    if not size and "size" not in kwargs:
        _no_size("randn", kwargs or generator is not None or out is not None or dtype is not None
                 or layout is not None or device is not None or requires_grad or pin_memory)
    _sized_dtype("randn", size, kwargs, dtype, generator)
    shape = _size(size, _size_kwarg("randn", kwargs), "randn")
    if batched_normal[0] is not None and out is None and not requires_grad:
        return _batch_draw(shape, lambda s: randn(s, generator=generator, dtype=dtype, layout=layout, device=device,
                                                  pin_memory=pin_memory))
    if (t := _fresh(shape, dtype, device, out, layout, pin_memory, _SAMPLED_FRESH)) is not None:
        flat = t._storage._raw.reshape(-1)
        return _filled(t, cs.normal(cpu_engine(generator), flat.size, flat.dtype, True, 0.0, 1.0, flat), flat,
                       requires_grad)
    t = _new(shape, dtype, device, out)
    _normal(_pairs(t), 0.0, _pair_std(t, 1.0), generator=generator)
    return _finish(t, requires_grad, out)


def _like(input: Tensor, dtype, device, op: str = "rand_like"):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input._shape, input._dtype if dtype is None else dtypes.as_dtype(dtype), device or input.device


@composite("rand_like")
@made_like(True)
def rand_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None, generator: Generator | None = None) -> Tensor:
    _overloads_generator_arg("rand_like", generator, (input,), _LIKE_OVERLOADS, dtype=dtype, device=device)
    shape, dt, dev = _like(input, dtype, device)
    perm = memfmt.dim_order(input, memory_format, "rand_like")
    if perm is None:
        return rand(shape, dtype=dt, device=dev, requires_grad=requires_grad, generator=generator)
    t = rand(memfmt.permuted_shape(shape, perm), dtype=dt, device=dev, generator=generator)
    return memfmt.laid_out(t, perm, requires_grad, memory_format, input)


@composite("randn_like")
@made_like(True)
def randn_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None, generator: Generator | None = None) -> Tensor:
    _overloads_generator_arg("randn_like", generator, (input,), _LIKE_OVERLOADS, dtype=dtype, device=device)
    shape, dt, dev = _like(input, dtype, device, "randn_like")
    perm = memfmt.dim_order(input, memory_format, "randn_like")
    if perm is None:
        return randn(shape, dtype=dt, device=dev, requires_grad=requires_grad, generator=generator)
    # PyTorch's `empty_like(input).normal_()`: a tensor not contiguous (channels_last, transposed) takes the
    # serial kernel in memory order, not the vectorised one of a contiguous draw
    t = _new(memfmt.permuted_shape(shape, perm), dt, dev, None)
    r = memfmt.laid_out(t, perm, False, memory_format, input)
    _normal(r, 0.0, 1.0, generator=generator)
    return _finish(r, requires_grad, None)


_LIKE_KW = ("torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False")
_LIKE_OVERLOADS = "".join(f" * (Tensor input, *, {gen}{_LIKE_KW})\n" for gen in ("torch.Generator generator, ", ""))
_RANDINT_LIKE_OVERLOADS = "".join(f" * (Tensor input, {sig}, *, {gen}{_LIKE_KW})\n"
                                  for sig in ("int low, int high", "Tensor high", "int high")
                                  for gen in ("torch.Generator generator, ", ""))
_FACTORY_KW = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
               "bool pin_memory = False, bool requires_grad = False")
_RANDINT_OVERLOADS = "".join(
    f" * ({sig}, *, {gen}{_FACTORY_KW})\n"
    for sig in ("int high, tuple of ints size", "int low, int high, tuple of ints size")
    for gen in ("torch.Generator generator, ", ""))


def _int_arg(v) -> bool:
    """A value PyTorch's parser reads as an int: Python's and numpy's integers, an integer 0-dim tensor."""
    if isinstance(v, Tensor):
        return v.ndim == 0 and not (v._dtype.is_floating_point or v._dtype.is_complex or v._dtype is dtypes.bool)
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


@composite("randint")
def randint(*args, size=None, generator: Generator | None = None, out: Tensor | None = None, dtype=None,
            layout=None, device=None, requires_grad: bool = False, pin_memory: bool = False, **kwargs) -> Tensor:
    """Integers drawn uniformly from [low, high): `randint(high, size)` or `randint(low, high, size)`.

    Raises:
        TypeError: arguments that match no overload, in the words of PyTorch's parser: the one overload that
            fits the count of arguments names its bad argument, else every overload is listed.

    Example:
        >>> randint(3, 10, (2,)).dtype
        ember.int64
    """
    if not kwargs and size is None and (2 <= len(args) <= 3) and (dtype is None or dtype is dtypes.int64) \
            and (t := _fresh_randint(args, device, out, layout, pin_memory, generator)) is not None:
        return require_grad(t) if requires_grad else t
    named = {"size": size, "generator": generator, "out": out, "dtype": dtype, "layout": layout, "device": device}
    given = {k: v for k, v in named.items() if v is not None} | kwargs
    pos = list(args)
    if size is None and pos and isinstance(pos[-1], tuple | list):
        size = pos.pop()
    bounds = pos + [kwargs[k] for k in ("low", "high") if k in kwargs]
    ok = (len(bounds) in (1, 2) and size is not None and set(kwargs) <= {"low", "high"}
          and all(_int_arg(b) for b in bounds) and isinstance(size, tuple | list) and all(_int_arg(s) for s in size)
          and (dtype is None or isinstance(dtype, dtypes.dtype) or any(dtype is t for t in (int, float, bool)))
          and (generator is None or isinstance(generator, Generator)))
    if not ok:
        if len(args) + len(given) == 2 and set(given) <= {"high", "size"}:  # the one plausible overload
            _randint_argument_error(args, given)
        got = ", ".join([_parser_type(a) for a in args]
                        + [f"{k}={_parser_type(given[k])}" for k in kwargs_order(given)])
        raise TypeError(f"randint() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n{_RANDINT_OVERLOADS}")
    low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
    dt = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    low, high = _from_to(out._dtype if out is not None else dt, int(low), int(high))
    t = _new(_size((), size), dt, device, out)
    return _finish(_random(t, low, high, generator=generator), requires_grad, out)


def _parser_type(v) -> str:
    """A value's type as PyTorch's parser names it in an overload mismatch (`torch.dtype`, `int`)."""
    from ember.core.ops.tensor_utils import layout

    for cls, name in ((dtypes.dtype, "torch.dtype"), (Generator, "torch.Generator"), (_device, "torch.device"),
                      (layout, "torch.layout")):
        if isinstance(v, cls):
            return name
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _randint_argument_error(args: tuple, given: dict) -> None:
    """The one plausible overload `(int high, tuple of ints size, ...)` names its first bad argument, as PyTorch's
    parser: a keyword one without a position (and a keyword tuple's bad element as the tuple's type)."""
    values = dict(zip(("high", "size"), args)) | given
    for i, name in enumerate(("high", "size")):
        v = values[name]
        where = f" (position {i + 1})" if i < len(args) else ""
        if name == "high" and not _int_arg(v):
            raise TypeError(f"randint(): argument 'high'{where} must be int, not {type(v).__name__}")
        if name == "size":
            # a list, or a keyword tuple, of a non-int is "not list"; a positional tuple names the element
            if not isinstance(v, tuple | list) or (isinstance(v, list) or not where) and not all(map(_int_arg, v)):
                raise TypeError(f"randint(): argument 'size'{where} must be tuple of ints, not {type(v).__name__}")
            if (bad := next((k for k, e in enumerate(v) if not _int_arg(e)), None)) is not None:
                raise TypeError(f"randint(): argument 'size'{where} must be tuple of ints, but found element of type "
                                f"{type(v[bad]).__name__} at pos {bad}")


def _fresh_randint(args: tuple, device, out, layout, pin_memory: bool, generator) -> Tensor | None:
    """`randint(high, size)` or `randint(low, high, size)` of Python ints under 2**28 apart (one word a value),
    drawn by the kernel into a new int64 tensor (`_fresh`); None for every other form, which the general path
    parses and checks."""
    *bounds, size = args
    if not isinstance(size, tuple) or not (generator is None or isinstance(generator, Generator)):
        return None
    for b in bounds:
        if b.__class__ is not int:
            return None
    low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
    if not (0 < high - low < 1 << 28 and -(1 << 63) <= low and high < 1 << 63):  # else an error to raise
        return None
    t = _fresh(size, dtypes.int64, device, out, layout, pin_memory, _INT64)
    if t is not None:
        flat = t._storage._raw.reshape(-1)
        cs.random_from_to(cpu_engine(generator), flat.size, low, high, flat)
    return t


@composite("randint_like")
@made_like(True)
def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, dtype=None, layout=None, device=None,
                 requires_grad: bool = False, memory_format=None, generator: Generator | None = None) -> Tensor:
    """Integers from [low, high) in a tensor shaped like `input` (`randint_like(x, high)` works too)."""
    _overloads_generator_arg("randint_like", generator, (input, low) if high is None else (input, low, high),
                             _RANDINT_LIKE_OVERLOADS, dtype=dtype, device=device)
    if high is None:
        low, high = 0, low
    shape, dt, dev = _like(input, dtype, device, "randint_like")
    perm = memfmt.dim_order(input, memory_format, "randint_like")
    if perm is None:
        return randint(low, high, shape, dtype=dt, device=dev, requires_grad=requires_grad, generator=generator)
    return memfmt.laid_out(randint(low, high, memfmt.permuted_shape(shape, perm), dtype=dt, device=dev,
                                   generator=generator), perm, requires_grad, memory_format, input)


_RANDPERM_INT_TYPES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int"}
_RANDPERM_FLOAT_LIMITS = {"float32": (2**24 + 1, "2^24+1", "Float"), "float16": (2049, "2049", "Half")}


def _randperm_range_check(n: int, dt) -> None:
    """PyTorch's refusal of an `n` whose largest value n - 1 the result's dtype cannot hold: an integer type's
    overflow, or a float type past the last integer it represents exactly (bfloat16 is not checked)."""
    if dt.name in _RANDPERM_INT_TYPES and n - 1 > np.iinfo(dt.np).max:
        raise RuntimeError(f"value cannot be converted to type {_RANDPERM_INT_TYPES[dt.name]} without overflow")
    if dt.name in _RANDPERM_FLOAT_LIMITS and n > _RANDPERM_FLOAT_LIMITS[dt.name][0]:
        _, text, kind = _RANDPERM_FLOAT_LIMITS[dt.name]
        raise RuntimeError(f"n cannot be greater than {text} for {kind} type.")


@composite("randperm")
@parsed("randperm", n="int")
def randperm(n: int, *, generator: Generator | None = None, out: Tensor | None = None, dtype=None, layout=None,
             device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A random permutation of 0..n-1 (int64 unless `dtype` says otherwise)."""
    from ember.core.creation import tensor

    if generator is not None and not isinstance(generator, Generator):
        sigs = "".join(f" * (int n, *, {gen}{_FACTORY_KW})\n" for gen in ("torch.Generator generator, ", ""))
        raise TypeError(f"randperm() received an invalid combination of arguments - got ({type(n).__name__}, "
                        f"generator={type(generator).__name__}), but expected one of:\n{sigs}")
    n = operator.index(n)  # a 0-dim integer tensor or numpy int, as PyTorch's parser takes it, made an int
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if (out._dtype if out is not None else dt) in dtypes.RESTRICTED:  # PyTorch's CPU kernel has none for them
        raise not_implemented_for("randperm", out._dtype if out is not None else dt)
    _randperm_range_check(n, out._dtype if out is not None else dt)
    if generator is not None and generator._mt is None:  # a GPU generator: its Philox stream
        perm = philox_stream(*philox_seed_offset(generator, n, generator.device)).permutation(n)
    else:  # the CPU's stream, as PyTorch's CPU kernel draws it
        perm = cs.randperm(cpu_engine(generator), n)
    t = tensor(perm, dtype=dt, device=device)
    if out is not None:
        return write_out(out, perm.astype(dt.np), "randperm")
    return _finish(t, requires_grad, None)


_NORMAL_SIGNATURES = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n")


def normal(mean=0.0, std=_STD_ONE, size=None, *, generator: Generator | None = None, out: Tensor | None = None,
           dtype=None, layout=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Numbers drawn from N(mean, std**2): elementwise for tensor `mean`/`std`, else of `size`."""
    given = tuple(a for a in (mean, std, size) if a is not None and a is not _STD_ONE)
    _overloads_generator_arg("normal", generator, given, _NORMAL_SIGNATURES)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError(f"normal() received an invalid combination of arguments - got ({type(mean).__name__}, "
                            f"{type(std).__name__}), but expected one of:\n{_NORMAL_SIGNATURES}")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        if batched_normal[0] is not None and out is None and not requires_grad:
            return _batch_draw(_size((), size), lambda s: normal(mean, std, s, generator=generator, dtype=dtype,
                                                                 layout=layout, device=device, pin_memory=pin_memory))
        t = _new(_size((), size), dtype, device, out)
        return _finish(_normal(t, float(mean), float(std), generator=generator), requires_grad, out)
    guard_batched_draw(mean, std)
    if st and (np.asarray(std._host_array()) < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    shape = broadcast_shapes(mean._shape if mt else (), std._shape if st else ())
    dt = dtypes.result_type(*(v for v in (mean, std) if isinstance(v, Tensor)))
    dev = (mean if mt else std).device
    eps = _normal(_new(shape, dt, dev, None), 0.0, 1.0, generator=generator)
    r = ew.add(ew.mul(eps, std), mean)
    return r if out is None else out.resize_(r._shape).copy_(r)


_BERNOULLI_METHOD_OVERLOADS = (" * (*, torch.Generator generator = None)\n"
                               " * (float p, *, torch.Generator generator = None)\n")


def _bernoulli_method_form(fn):
    """`x.bernoulli(...)`: PyTorch's method refuses a non-Generator `generator=` with its own overloads, or, when
    `p` is given, as that one overload's argument error."""
    def bernoulli(self, *args, generator=None, **kwargs):
        if generator is not None and not isinstance(generator, Generator):
            if args or "p" in kwargs:
                raise TypeError(f"bernoulli(): argument 'generator' must be torch.Generator, not "
                                f"{type(generator).__name__}")
            _overloads_generator_arg("bernoulli", generator, (), _BERNOULLI_METHOD_OVERLOADS)
        return fn(self, *args, generator=generator, **kwargs)

    bernoulli.__doc__ = fn.__doc__
    return bernoulli


@method(method_form=_bernoulli_method_form)
def bernoulli(input: Tensor, p=None, *, generator: Generator | None = None, out: Tensor | None = None) -> Tensor:
    """0/1 draws (in `input`'s dtype) with the probabilities in `input`, or with `p` for every element."""
    from ember.core.creation import empty_like

    _overloads_generator_arg("bernoulli", generator, (input,) if p is None else (input, p), _BERNOULLI_OVERLOADS)
    if input._dtype is dtypes.complex32:
        from ember.core.ops.numeric import DtypeNotImplemented

        raise DtypeNotImplemented("\"bernoulli_tensor_cpu_self_\" not implemented for 'ComplexHalf'")
    guard_batched_draw(input, p)
    prob = input if p is None else p
    _check_p(prob)
    t = out if out is not None else empty_like(input, memory_format=contiguous_format)  # row-major, as PyTorch's
    return _finish(_bernoulli(t, prob, generator=generator), False, out)


_poisson = declare("poisson", differentiable=False)


@_poisson.register("cpu")
def _poisson_cpu(input, *, generator=None):
    draws = cs.poisson(cpu_engine(generator), np.asarray(input._np()))  # row-major, as PyTorch's new result
    return Tensor._wrap(draws.reshape(input._shape).astype(input._dtype.np))


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Counts drawn from Poisson distributions with the rates in `input` (same shape and dtype)."""
    _generator_arg("poisson", generator)
    if not input._dtype.is_floating_point:
        raise TypeError(f'"poisson" not implemented for \'{input._dtype.name}\'; got {describe(input)}')
    guard_batched_draw(input)
    if (np.asarray(input._host_array()) < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _poisson(input, generator=generator)


def thread_safe_generator() -> Generator | None:
    """The generator a DataLoader thread worker owns, for transforms to draw from; PyTorch returns None
    outside thread workers (the default generator is then used). ember's DataLoader runs its workers in
    processes or in the calling thread, never in worker threads, so this is always None."""
    return None


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Successes in `count` trials of success probability `prob` (elementwise, broadcast), in count's
    dtype; drawn on the host from the generator's stream. No gradient, as in PyTorch.

    >>> from ember.core import tensor
    >>> binomial(tensor([0.0, 4.0]), tensor([0.5, 1.0])).tolist()
    [0.0, 4.0]
    """
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' must be Tensor, not {describe(t)}")
    if not count._dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for count; got {describe(count)}")
    if prob._dtype is not count._dtype:
        raise RuntimeError(f"binomial: prob must have count's dtype; got {describe(count)} and {describe(prob)}")
    if prob.device != count.device:
        raise RuntimeError(f"binomial: count and prob must be on the same device; got {describe(count)} and "
                           f"{describe(prob)}")
    guard_batched_draw(count, prob)
    shape = broadcast_shapes(count._shape, prob._shape)
    n = np.broadcast_to(np.asarray(count._host_array(), dtype=np.float64), shape)
    p = np.broadcast_to(np.asarray(prob._host_array(), dtype=np.float64), shape)
    if not (np.all(n >= 0) and np.all(np.isfinite(n))):
        raise RuntimeError("binomial: count must be finite and non-negative")
    if not np.all((p >= 0) & (p <= 1)):
        raise RuntimeError("binomial: prob must be in [0, 1]")
    if count.device.type == "cpu":  # PyTorch's sampler on PyTorch's stream
        draws = cs.binomial(cpu_engine(generator), n, p, count._dtype is dtypes.float32).reshape(shape)
    else:
        sd, o = philox_seed_offset(generator, n.size, count.device)
        draws = philox_stream(sd, o).binomial(n.astype(np.int64), p)
    return Tensor._wrap(np.asarray(draws).astype(count._dtype.np)).to(count.device)


_multinomial = declare("multinomial", differentiable=False)


@_multinomial.register("cpu")
def _multinomial_cpu(input, num_samples, replacement=False, *, generator=None):
    from ember.core.creation import empty_like
    from ember.core.ops import reduce, sorting

    if replacement and num_samples > 1:  # PyTorch's kernel: row by row, a float64 uniform searched in the CDF
        p = np.asarray(input._np())
        rows = p.reshape(-1, p.shape[-1])
        out = cs.multinomial_with_replacement(cpu_engine(generator), rows, num_samples)
        return Tensor._wrap(out.reshape(p.shape[:-1] + (num_samples,)))
    # PyTorch's fast path otherwise: the largest p / q for q ~ Exp(1) (an exponential race)
    p = input._np()
    if num_samples == 1 and p.flags.c_contiguous and (input._dtype is dtypes.float32 or input._dtype is dtypes.float64):
        # the draws, the quotient and the argmax below without their ops (a kernel's inner ops are not recorded)
        q = cs.exponential(cpu_engine(generator), p.size, 1.0).astype(p.dtype, copy=False).reshape(p.shape)
        return Tensor._wrap(np.argmax(p / q, axis=-1, keepdims=True))
    q = _exponential(empty_like(input), 1.0, generator=generator)
    keys = ew.div(input, q)
    if num_samples == 1:
        return reduce.argmax(keys, -1, keepdim=True)
    return sorting.topk(keys, num_samples).indices


@method
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Generator | None = None,
                out: Tensor | None = None) -> Tensor:
    """Category indices drawn from each row of the (unnormalised) probabilities in `input`."""
    _generator_arg("multinomial", generator)
    guard_batched_draw(input)
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{dtypes.TORCH_NAMES.get(input._dtype.name, input._dtype.name)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input._shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if input._shape[-1] > 2**24:  # PyTorch's limit, checked before the probabilities are read
        raise RuntimeError("number of categories cannot exceed 2^24")
    a = np.asarray(input._host_array(), dtype=np.float64)
    rows = a.reshape(-1, a.shape[-1])
    if replacement and num_samples > 1:  # PyTorch's with-replacement kernel checks row by row, entry by entry
        bad = ~((rows >= 0) & np.isfinite(rows)).all(-1) | ~(rows > 0).any(-1)
        if bad.any():
            row = rows[np.argmax(bad)]
            for v in row:
                if not v >= 0:
                    raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
                if not np.isfinite(v):
                    raise RuntimeError("invalid multinomial distribution (encountering probability entry = "
                                       "infinity or NaN)")
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not (rows > 0).any(-1).all():  # all entries are >= 0 here: a row sums to 0 when none is positive
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    r = _multinomial(input, int(num_samples), bool(replacement), generator=generator)
    return r if out is None else out.resize_(r._shape).copy_(r)


def dropout_mask(shape, p: float, generator: Generator | None = None, *, dtype=None, device=None,
                 like: Tensor | None = None) -> Tensor:
    """Dropout's multiplier: 0 with probability `p`, else 1 / (1 - p), so `x * mask` is dropout(x).

    With `like`, the mask is laid out as `like` (PyTorch's `empty_like(input).bernoulli_(1 - p)`), so the
    mask of a transposed input is drawn in its memory order, as PyTorch draws it.

    Example:
        >>> sorted(set(dropout_mask((100,), 0.5).tolist())) == [0.0, 2.0]
        True
    """
    if not isinstance(p, numbers.Real) or not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if like is not None:
        from ember.core.creation import empty_like

        m = empty_like(like, dtype=dtype)
    else:
        m = _new(tuple(shape), dtype, device, None)
    _bernoulli(m, 1.0 - p, generator=generator)
    if p < 1:  # PyTorch's `noise.div_(1 - p)`: 1 / (1 - p) computed in the mask's dtype
        ew.div(m, 1.0 - p, out=m)
    return m
