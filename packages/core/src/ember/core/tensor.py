"""The one tensor type of the whole stack: storage + offset + shape + strides + dtype.

`Tensor` holds metadata only; every computation is an op of the registry (`ember.core.ops`),
attached to the class as methods and operators by `ember.core.methods`. The autograd layer
attaches gradient tracking from above through the dispatch hook and the slots reserved for it
(`_requires_grad`, `_grad`, `_grad_fn`, `_ag`); core never reads their meaning.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from ember.core import dtypes
from ember.core.device_backends import backend
from ember.core.device import CPU, device
from ember.core.storage import Storage
from ember.core.storage import created_hook as _created_hook

__all__ = ["Tensor", "contiguous_strides", "describe"]

_REINFORCE_REMOVED = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


# called with each new tensor while the autograd layer needs to see them (an `inference_mode()` block is
# active in some thread: it marks inference tensors); None otherwise, so `_make` pays one global read
_on_make = None


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides, in elements, of a dense tensor of `shape`."""
    strides = []
    acc = 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n or 1  # sizes are >= 0; builtins.max would cost 0.3 us per dim
    return tuple(reversed(strides))


_CSTRIDES: dict[tuple, tuple] = {}  # shape -> contiguous strides, for `Tensor._wrap`


def _contiguous_strides_cached(shape: tuple) -> tuple:
    if len(_CSTRIDES) > 4096:
        _CSTRIDES.clear()
    r = _CSTRIDES[shape] = contiguous_strides(shape)
    return r


def describe(x) -> str:
    """`Tensor(shape=(3, 4), dtype=float32, device=cpu)` for errors; repr for anything else."""
    if isinstance(x, Tensor):
        return f"Tensor(shape={tuple(x._shape)}, dtype={x._dtype.name}, device={x.device})"
    return repr(x)


_new = object.__new__
_BY_NP = dtypes._BY_NP


_scalar_of_grad_warned = False
# `guard(tensor, kind)` before a Python value is read out of a tensor ("item", "bool", "tolist"; "fill_" with the
# filled tensor third): set by a transform that must refuse such reads of the values it maps (torch.func.vmap),
# None otherwise
value_read_guard: list = [None]
# `made(input, result, random)` after a factory built `result` like `input` (`empty_like(x)`, `x.new_zeros(n)`;
# `random` for `rand_like` ...): set by torch.func.vmap, whose record of mapped tensors takes such a result in, as
# PyTorch's batching rules make it batched (a random one only where each sample draws its own)
like_made: list = [None]


def made_like(fn, random: bool = False):
    """Decorator for a factory whose first argument is the tensor it builds like: report it to `like_made`."""
    if not callable(fn):
        return lambda f: made_like(f, random=fn)

    def call(input, *args, **kwargs):
        out = fn(input, *args, **kwargs)
        if like_made[0] is not None:
            like_made[0](input, out, random)
        return out

    call.__dict__.update(fn.__dict__)
    call.__name__, call.__qualname__, call.__doc__, call.__wrapped__ = fn.__name__, fn.__qualname__, fn.__doc__, fn
    call.__module__ = fn.__module__
    return call


def _grad_mode_enabled() -> bool:
    """Whether ops are being recorded for autograd: always, for ember.core alone; ember.autograd puts its grad
    mode here (PyTorch's scalar-conversion warning is given only under grad mode)."""
    return True


def _warn_scalar_of_grad() -> None:
    """PyTorch's once-per-process warning when `float()`/`complex()` (and so `tensor([t0, t1])`) reads a tensor
    that requires grad, while grad mode is on (not inside `no_grad`, as in an optimizer's step)."""
    global _scalar_of_grad_warned
    if not _scalar_of_grad_warned and _grad_mode_enabled():
        _scalar_of_grad_warned = True
        from ember.core.ops._util import internally, warn_at_caller

        warn_at_caller(internally("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                                  "behavior.\nConsider using tensor.detach() first.",
                                  "torch/csrc/autograd/generated/python_variable_methods.cpp:822"))



def _other_backend_device(dev, kind: str, shown: str) -> None:
    """`Tensor.xpu/ipu/mtia(device)`'s check of an explicit device, which PyTorch makes before its missing backend's
    error: an int is the current accelerator's index (none here), another device type is refused."""
    if dev is None:
        return
    if isinstance(dev, int) and not isinstance(dev, bool):
        device(dev)  # PyTorch's "Cannot access accelerator device when none is available."
    name = dev.type if isinstance(dev, device) else str(dev).partition(":")[0]
    if name != kind:
        raise RuntimeError(f"Invalid device, must be {shown} device")

class Tensor:
    """A strided view of a storage: `shape`, `stride()`, `storage_offset()`, `dtype`, `device`."""

    __slots__ = ("_storage", "_offset", "_shape", "_strides", "_dtype", "_npc",
                 "_requires_grad", "_grad", "_grad_fn", "_ag", "__dict__", "__weakref__")

    __array_priority__ = 1000  # numpy defers to our reflected operators
    # the conjugate bit of a lazy `conj()` view: a class default, set in the instance's `__dict__` only on
    # such views, so an ordinary tensor pays nothing for it (NOTE [ Complex storage and conj ])
    _conj = False
    # the negative bit of PyTorch's lazily negated view (`.imag` of a conjugate view): the same scheme
    _neg = False
    # `zeros_like` & co may allocate a dense tensor of this one's geometry directly (not a sparse or lazy one)
    _dense_like = True

    def __new__(cls, *args, **kwargs):
        """`Tensor(2, 3)` is uninitialised float storage; `Tensor([[1, 2]])` copies data."""
        from ember.core import creation

        if (err := creation.legacy_new_error(args)) is not None:
            raise err
        if len(args) == 1 and not isinstance(args[0], numbers.Integral | Size):  # Tensor(Size([2, 3])), Tensor(
            # np.int64(2)) are shapes
            src = args[0]
            if isinstance(src, Tensor):  # PyTorch's alias (a new view of src), of class `cls`
                from ember.core.ops.layout import alias_view

                return alias_view(src) if cls is Tensor else src._as_subclass(cls)
            t = creation.tensor(src, dtype=dtypes.get_default_dtype())
        else:
            shape = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args or (0,)  # Tensor(): (0,)
            t = creation.empty(tuple(shape), device=kwargs.get("device"))
        if cls is not Tensor:
            t = t._as_subclass(cls)
        return t

    # --- construction (internal) -------------------------------------------------------
    @staticmethod
    def _make(storage: Storage, offset: int, shape: tuple, strides: tuple, dtype, cls=None) -> Tensor:
        t = object.__new__(cls or Tensor)
        t._storage = storage
        t._offset = offset
        t._shape = shape
        t._strides = strides
        t._dtype = dtype
        t._npc = None
        t._requires_grad = False
        t._grad = None
        t._grad_fn = None
        t._ag = None
        if _on_make is not None:
            _on_make(t)
        return t

    @staticmethod
    def _make_views(storage: Storage, dtype, shapes: list, strides: tuple, offsets) -> tuple:
        """Views of `storage` sharing `strides`, one per (shape, offset) pair: `_make` inlined in one loop, for
        the pieces of unbind and split."""
        out = []
        new = object.__new__
        for shape, offset in zip(shapes, offsets):
            t = new(Tensor)
            t._storage = storage
            t._offset = offset
            t._shape = shape
            t._strides = strides
            t._dtype = dtype
            t._npc = None
            t._requires_grad = False
            t._grad = None
            t._grad_fn = None
            t._ag = None
            if _on_make is not None:
                _on_make(t)
            out.append(t)
        return tuple(out)

    @staticmethod
    def _wrap(arr, keep: bool = False) -> Tensor:
        """A tensor that takes ownership of the fresh numpy result `arr` (no copy when its layout allows);
        `keep`: a dense result in any dim order keeps it (an elementwise op's over a channels_last input)."""
        if type(arr) is not np.ndarray:
            arr = np.asarray(arr)
        dt = _BY_NP.get(arr.dtype)
        if dt is None and (dt := dtypes.from_numpy_dtype(arr.dtype)) is None:
            raise TypeError(f"can't convert np.ndarray of type {arr.dtype}; ember supports "
                            f"{', '.join(d.name for d in dtypes.ALL)}")
        flags = arr.flags
        shape = arr.shape
        if flags.c_contiguous:
            raw = arr
            strides = _CSTRIDES.get(shape)
            if strides is None:
                strides = _contiguous_strides_cached(shape)
        else:
            if flags.f_contiguous:
                raw = arr.T
            elif not keep or (raw := arr.ravel("K")).base is None:  # ravel copies (base None) unless dense
                arr = raw = np.ascontiguousarray(arr)
            isz = dt.itemsize
            strides = tuple([s // isz for s in arr.strides])
        # Storage(raw, nbytes) and Tensor._make, inlined: this runs once per op result
        st = _new(Storage)
        st._raw = raw
        st._bytes = st._block = st._shared = None
        st.nbytes = arr.nbytes
        st.device = CPU
        st.version = 0
        if _created_hook[0] is not None:
            _created_hook[0](st)
        t = _new(Tensor)
        t._storage = st
        t._offset = 0
        t._shape = shape
        t._strides = strides
        t._dtype = dt
        t._npc = (raw, arr)
        t._requires_grad = False
        t._grad = None
        t._grad_fn = None
        t._ag = None
        if _on_make is not None:
            _on_make(t)
        return t

    def _as_subclass(self, cls) -> Tensor:
        """`as_subclass`: this tensor's data as an instance of `cls`; one that requires grad is an alias the
        graph records, as PyTorch's (its gradient reaches this tensor)."""
        if self._requires_grad:
            from ember.core.overrides import recorded_alias

            return recorded_alias(self, cls)
        t = Tensor._make(self._storage, self._offset, self._shape, self._strides, self._dtype, cls)
        if self._conj:
            t._conj = True
        if self._neg:
            t._neg = True
        if "_is_inference" in self.__dict__:  # autograd's inference-tensor mark: the alias is one too, as PyTorch's
            t._is_inference = self._is_inference
        return t

    @staticmethod
    def _make_subclass(cls, data, require_grad: bool = False, dispatch_strides: bool = False,
                       dispatch_device: bool = False, device_for_backend_keys=None) -> Tensor:
        """PyTorch's `Tensor._make_subclass`: a detached alias of `data` of class `cls` (a Tensor subclass)."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"cls must be a type (got {type(cls).__name__})" if not isinstance(cls, type) else
                            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                            "possible. Make sure your class inherits from Tensor.")
        if not isinstance(data, Tensor):
            raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                            f"{type(data).__name__}")
        t = Tensor._make(data._storage, data._offset, data._shape, data._strides, data._dtype, cls)
        t._requires_grad = bool(require_grad)
        return t

    def __init_subclass__(cls, **kwargs):
        """A subclass takes part in `__torch_function__` (NOTE [ Tensor subclasses ] in ember.core.overrides)."""
        super().__init_subclass__(**kwargs)
        from ember.core.overrides import register_subclass

        register_subclass(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """PyTorch's default: run `func` with the protocol off for subclasses, and give its tensors class `cls`."""
        from ember.core.overrides import default_torch_function

        return default_torch_function(cls, func, types, args, kwargs)

    def _np(self) -> np.ndarray:
        """The numpy view of this CPU tensor's elements (shares memory)."""
        # The cache remembers the buffer it views: `share_memory_` and `resize_` swap `Storage.data`.
        st = self._storage
        c = self._npc
        if c is not None and c[0] is st._raw:
            return c[1]
        if st.device.type != "cpu":
            raise RuntimeError(f"{describe(self)} is not on the CPU; call .cpu() first")
        isz = self._dtype.itemsize
        # the buffer is the storage's C-contiguous array itself (same memory as `st.data`'s bytes,
        # without making that flat uint8 view first)
        try:
            a = np.ndarray(self._shape, self._dtype.np, st._raw, self._offset * isz,
                           tuple([s * isz for s in self._strides]))
        except ValueError:
            if 0 not in self._shape:
                raise
            # an empty view may start past its storage's end (a slice of an empty batch): it reads nothing
            a = np.ndarray(self._shape, self._dtype.np, st._raw, 0, tuple([s * isz for s in self._strides]))
        if self._conj:  # a conjugate view reads conjugated values, never cached (its storage may change)
            return np.negative(_conjugated(a)) if self._neg else _conjugated(a)
        if self._neg:  # so does a negative view, negated
            return np.negative(a)
        self._npc = (st._raw, a)
        return a

    def _set_meta(self, storage: Storage, offset: int, shape: tuple, strides: tuple) -> None:
        """Re-point this tensor (in-place metadata ops: `set_`, `t_`, `squeeze_`, `resize_`)."""
        self._storage = storage
        self._offset = offset
        self._shape = tuple(shape)
        self._strides = tuple(strides)
        self._npc = None

    # --- metadata ----------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return _NEW_SIZE(Size, self._shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return _NEW_SIZE(Size, self._shape)
        if dim.__class__ is bool:  # PyTorch's parser takes no bool for an int
            raise TypeError("size(): argument 'dim' (position 1) must be int, not bool")
        return self._shape[self._wrap_dim(dim)]

    def stride(self, dim: int | None = None):
        if dim is None:
            return self._strides
        if dim.__class__ is bool:
            raise TypeError("stride(): argument 'dim' (position 1) must be int, not bool")
        return self._strides[self._wrap_dim(dim)]

    def storage_offset(self) -> int:
        return self._offset

    def untyped_storage(self) -> Storage:
        return self._storage

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self) -> device:
        return self._storage.device

    @property
    def is_cuda(self) -> bool:
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._storage.device.type == "cpu"

    is_xla = property(lambda self: False)  # no XLA device in ember, as a PyTorch without torch_xla

    def xpu(self, device=None, non_blocking: bool = False, memory_format=None):
        """No XPU in ember: PyTorch's error of a build without one."""
        _other_backend_device(device, "xpu", "xpu")
        raise AssertionError("Torch not compiled with XPU enabled")

    def ipu(self, device=None, non_blocking: bool = False, memory_format=None):
        """No IPU in ember: PyTorch's error of a build without one."""
        _other_backend_device(device, "ipu", "ipu")
        raise RuntimeError("PyTorch is not linked with support for ipu devices")

    def mtia(self, device=None, non_blocking: bool = False, memory_format=None):
        """No MTIA in ember: PyTorch's error of a build without one."""
        _other_backend_device(device, "mtia", "MTIA")
        raise AssertionError("Torch not compiled with MTIA enabled. Ensure you have `import "
                             "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
                             "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")

    def reinforce(self, reward):
        """Removed from PyTorch (0.4): its RuntimeError with the `torch.distributions` replacement."""
        raise RuntimeError(_REINFORCE_REMOVED)

    @property
    def is_meta(self) -> bool:
        """A tensor of the meta device: a shape, dtype and strides without data (NOTE [ The meta device ])."""
        return self._storage.device.type == "meta"

    # Devices, layouts and kinds of tensor ember does not have: their predicates are always False.
    is_xpu = is_mps = is_ipu = is_hpu = is_mtia = is_vulkan = is_maia = property(lambda self: False)
    is_sparse = is_sparse_csr = is_quantized = is_mkldnn = is_nested = property(lambda self: False)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def is_contiguous(self, memory_format=None) -> bool:
        """Dense in row-major order, or in the order `memory_format` names (`channels_last`: NHWC)."""
        order = list(range(len(self._shape)))
        name = getattr(memory_format, "name", None)
        if name in ("channels_last", "channels_last_3d"):
            if len(self._shape) != (4 if name == "channels_last" else 5):
                return False
            order = [0, *order[2:], 1]  # N, spatial dims, C: C varies fastest; PyTorch checks an empty one's strides
        elif 0 in self._shape:
            return True  # PyTorch: a tensor without elements is contiguous whatever its strides
        expected = 1
        for d in reversed(order):
            if self._shape[d] != 1 and self._strides[d] != expected:
                return False
            expected *= self._shape[d]
        return True

    def data_ptr(self) -> int:
        """The address of the first element; 0 for a tensor without elements (PyTorch's null data pointer)."""
        if 0 in self._shape:
            return 0
        return self._storage.data_ptr() + self._offset * self._dtype.itemsize

    def _version_get(self) -> int:
        return self._storage.version

    _version = property(_version_get)

    def _wrap_dim(self, dim: int) -> int:
        n = len(self._shape)
        hi = n or 1  # a 0-dim tensor accepts dims 0 and -1
        if not -hi <= dim < hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-hi}, {hi - 1}], "
                             f"but got {dim})")
        return dim + n if dim < 0 else dim

    # --- autograd slots: defaults that the autograd layer overrides ----------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @property
    def grad(self):
        return self._grad

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    # --- Python protocols ----------------------------------------------------------------
    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __hash__(self) -> int:
        return id(self)

    def __array__(self, dtype=None, copy=None):
        """numpy's view of the tensor: shared by `np.asarray(t)`, a copy for `np.array(t)` (numpy passes copy=True)."""
        a = self.numpy()
        if dtype is not None or copy:
            a = a.astype(a.dtype if dtype is None else dtype, copy=bool(copy))
        return a

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """What numpy computed from a tensor (`np.exp(t)`, `t * array`) comes back as a tensor over its result,
        booleans as uint8: PyTorch's wrapping."""
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        from ember.core.creation import from_numpy

        return from_numpy(np.ascontiguousarray(array) if array.ndim else array.reshape(()))

    def __contains__(self, element) -> bool:
        """`x in t`: whether any element of `t` equals `x` (a number or a broadcastable tensor), as PyTorch."""
        if isinstance(element, (Tensor, numbers.Number)):
            return bool((element == self).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    def __bool__(self) -> bool:
        if value_read_guard[0] is not None:
            value_read_guard[0](self, "bool")
        if self.numel() != 1:
            many = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {many} is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        if self._requires_grad:
            _warn_scalar_of_grad()
        return float(_real_part(self._python_scalar(), "double"))

    def __int__(self) -> int:
        return int(_real_part(self._python_scalar(), "int64_t"))

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self._dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._scalar_value())

    def __complex__(self) -> complex:
        if self._requires_grad:
            _warn_scalar_of_grad()
        return complex(self._python_scalar())

    def _python_scalar(self):
        """The value for `float()`/`int()`/`complex()`: Python's conversions raise ValueError, not `item()`'s
        RuntimeError, for a tensor of other than one element."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._scalar_value()

    def __format__(self, spec: str) -> str:
        """A plain 0-dim tensor formats as its number, even with no spec (`f"{loss}"`), as PyTorch's."""
        if self.ndim == 0 and type(self) is Tensor and self._storage.device.type != "meta":
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def _scalar_value(self):
        if value_read_guard[0] is not None:
            value_read_guard[0](self, "item")
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if self._storage.device.type == "meta":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return self._values().reshape(()).item()

    def _host_array(self) -> np.ndarray:
        """The elements as a numpy array on the host (synchronises with a device)."""
        if self._storage.device.type == "cpu":
            return self._np()
        a = backend(self._storage.device.type).to_host(self)
        return _conjugated(a) if self._conj else a

    def _values(self) -> np.ndarray:
        """`_host_array()`, with complex32 records as complex64 numbers (for Python values and printing)."""
        a = self._host_array()
        if self._dtype._category == dtypes._SHELL:
            from ember.core.ops.shell_dtypes import refuse_values

            refuse_values(self, "item")
        if self._dtype is dtypes.complex32:
            from ember.core.ops.complex_half import to_complex64

            return to_complex64(a)
        return a

    def item(self):
        """The value of a one-element tensor as a Python number."""
        return self._scalar_value()

    def tolist(self):
        if value_read_guard[0] is not None:
            value_read_guard[0](self, "tolist")
        if self._dtype._category == dtypes._SHELL:
            from ember.core.ops.shell_dtypes import refuse_values

            refuse_values(self, "tolist")
        return self._values().tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The elements as a numpy array sharing this CPU tensor's memory."""
        if self._storage.device.type != "cpu":
            if not force:
                raise TypeError(f"can't convert {self.device} device type tensor to numpy. "
                                "Use Tensor.cpu() to copy the tensor to host memory first.")
            return self._host_array()
        if self._requires_grad and not force and _grad_mode_enabled():  # PyTorch's check is under grad mode only
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        if self._dtype is dtypes.complex32 or self._dtype is dtypes.bfloat16 or self._dtype in dtypes.FLOAT8 or \
                self._dtype._category == dtypes._SHELL:
            raise TypeError(f"Got unsupported ScalarType {dtypes.TORCH_NAMES[self._dtype.name]}")  # numpy has none
        if force and (self._conj or self._neg):  # PyTorch's force=True resolves the bits into a copy
            return self.resolve_conj().resolve_neg().numpy(force=True)
        if self._conj:
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. "
                               "Use tensor.resolve_conj().numpy() instead.")
        if self._neg:
            raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. "
                               "Use tensor.resolve_neg().numpy() instead.")
        return self._np()

    def __repr__(self) -> str:
        from ember.core.printing import tensor_repr

        cls = self.__class__
        if cls is Tensor or cls.__dict__.get("_repr_as_tensor"):
            return tensor_repr(self)
        r = tensor_repr(self, cls.__name__)  # PyTorch's `MyT([1., 2.])` for a subclass
        return f"Parameter({r})" if self.__dict__.get("_is_param") else r  # one `nn.Parameter(t)` flagged

    def share_memory_(self) -> Tensor:
        """Move the storage into shared memory in place (a no-op if already shared); returns self."""
        from ember.core.sharing import share_memory_

        return share_memory_(self)

    def is_shared(self) -> bool:
        """Whether the storage lives in shared memory (CUDA storages always do)."""
        from ember.core.sharing import is_shared

        return is_shared(self)

    def __reduce_ex__(self, protocol):
        from ember.core.sharing import reduce_tensor

        return reduce_tensor(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        from ember.core.copying import deepcopy_tensor

        result = deepcopy_tensor(self, memo)
        memo[id(self)] = result
        return result


def _conjugated(a: np.ndarray) -> np.ndarray:
    """A new array of the conjugates of `a`'s complex elements (complex32 records: pairs of float16)."""
    if a.dtype.kind == "c":
        return np.conjugate(a)
    r = np.array(a, copy=True)
    r.reshape(-1).view(np.float16)[1::2] *= -1
    return r


def _real_part(v, to: str):
    """A complex scalar with no imaginary part as its real part (PyTorch's `float(tensor(1+0j))`)."""
    if isinstance(v, complex):
        if v.imag:
            raise RuntimeError(f"value cannot be converted to type {to} without overflow")
        return v.real
    return v


_NEW_SIZE = tuple.__new__  # a Size from a tuple known to hold ints (a tensor's own shape), unchecked


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as `ember.Size([2, 3])`."""

    def __new__(cls, sizes=()):
        items = tuple(sizes)
        if any(type(d) is not int for d in items):  # bools, numpy ints, 0-d int tensors: their index
            fixed = []
            for i, d in enumerate(items):
                try:
                    fixed.append(operator.index(d))
                except TypeError:
                    raise TypeError(f"{dtypes._repr_namespace}.Size() takes an iterable of 'int' (item {i} is "
                                    f"'{type(d).__name__}')") from None
            items = tuple(fixed)
        return tuple.__new__(cls, items)

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"{dtypes._repr_namespace}.Size({list(self)})"

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return _NEW_SIZE(Size, r) if isinstance(key, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            f"{dtypes._repr_namespace}.Size")
        return Size(tuple(self) + other)

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return _NEW_SIZE(Size, tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __getattr__(self, name: str):
        raise dtypes.no_attribute(self, name)
