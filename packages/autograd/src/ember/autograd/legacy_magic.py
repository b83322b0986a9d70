"""What PyTorch's `torch.load` raises for bytes that are neither a zip archive nor an ember checkpoint.

PyTorch reads such a file as its legacy format, whose first pickled object is a magic number: the
exception is the one its unpickler meets on the way (Python's pickle with `weights_only=False`, its
weights-only unpickler otherwise, whose `UnpicklingError`s it rewords), or "Invalid magic number" when
the first object loads but is no magic number. ember reproduces that first read and raises the same
exception; it builds nothing from the file (no global is ever resolved or called).
"""

from __future__ import annotations

import _codecs
import _compat_pickle
import io
import pickle
from collections import Counter, OrderedDict
from struct import unpack

__all__ = ["raise_as_pytorch"]

_UNSAFE = ("In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` "
           "to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can "
           "result in arbitrary code execution. Do it only if you got the file from a trusted source.")
_DOCS = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with weights_only "
         "https://pytorch.org/docs/stable/generated/torch.load.html.")


def raise_as_pytorch(data: bytes, weights_only: bool):
    """Raise what `torch.load` raises for `data`, which is no zip archive, no ember and no legacy checkpoint."""
    if not weights_only:
        pickle.Unpickler(io.BytesIO(data)).load()  # the caller chose to run what the file names, as PyTorch does
    else:
        try:
            _WeightsOnlyRead(data).first_object()
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_reworded(str(e))) from None
    raise RuntimeError("Invalid magic number; corrupt file?")


def _reworded(message: str) -> str:
    """PyTorch's wrapping of a weights-only unpickler's message."""
    if "was not an allowed global by default." in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                f"\n\t(1) {_UNSAFE}\n\t(2) Alternatively, to load with `weights_only=True` please check the "
                "recommended steps in the following error message.\n\tWeightsUnpickler error: " + message + _DOCS)
    head = f"Weights only load failed. {_UNSAFE}\n"
    if "is blocked" not in message:
        head += ("Please file an issue with the following so that we can make `weights_only=True` compatible with "
                 "your use case: WeightsUnpickler error: ")
    return head + "\n\n" + message + _DOCS


_CONSTANTS = {b"N": None, b"\x89": False, b"\x88": True}
_EMPTY = {b")": tuple, b"]": list, b"}": dict, b"\x8f": set}
_BLOCKED = ("sys", "os", "posix", "nt")
# the globals outside torch that PyTorch's weights-only unpickler allows by default (all harmless to call)
_ALLOWED = {"_codecs.encode": _codecs.encode, "builtins.bytearray": bytearray, "builtins.complex": complex,
            "builtins.set": set, "collections.Counter": Counter, "collections.OrderedDict": OrderedDict}


class _WeightsOnlyRead:
    """PyTorch's weights-only unpickler up to the first STOP, failing where and as it fails; of its default
    allowlist only the globals outside torch (the first object of a non-checkpoint builds no tensor)."""

    def __init__(self, data: bytes) -> None:
        self.file = io.BytesIO(data)
        self.stack: list = []
        self.marks: list[list] = []
        self.memo: dict = {}

    def pop_mark(self) -> list:
        items, self.stack = self.stack, self.marks.pop()
        return items

    def first_object(self):
        read = self.file.read
        while True:
            stack = self.stack
            key = read(1)
            if not key:
                raise EOFError
            if key == b"c":
                self._global()
            elif key in (b"\x81", b"R", b"b", b"Q"):
                self._object_op(key)
            elif key == b"a":
                item = stack.pop()
                if type(stack[-1]) is not list:
                    raise pickle.UnpicklingError(f"Can only append to lists, but got {type(stack[-1])}")
                stack[-1].append(item)
            elif key == b"e":
                items = self.pop_mark()
                if type(self.stack[-1]) is not list:
                    raise pickle.UnpicklingError(f"Can only extend lists, but got {type(self.stack[-1])}")
                self.stack[-1].extend(items)
            elif key == b"s":
                value, k = stack.pop(), stack.pop()
                self._check_dict("SETITEM")
                stack[-1][k] = value
            elif key == b"u":
                items = self.pop_mark()
                self._check_dict("SETITEMS")
                for i in range(0, len(items), 2):
                    self.stack[-1][items[i]] = items[i + 1]
            elif key == b"(":
                self.marks.append(stack)
                self.stack = []
            elif key == b"t":
                self.stack.append(tuple(self.pop_mark()))
            elif key in (b"\x85", b"\x86", b"\x87"):
                n = key[0] - 0x84
                stack[-n:] = [tuple(stack[i] for i in range(-n, 0))]
            elif key in _CONSTANTS:
                stack.append(_CONSTANTS[key])
            elif key in _EMPTY:
                stack.append(_EMPTY[key]())
            else:
                done, value = self._value_op(key, read)
                if done:
                    return value

    def _value_op(self, key: bytes, read) -> tuple[bool, object]:
        """The opcodes that read their operand from the file; (True, object) at STOP."""
        stack = self.stack
        if key == b"J":
            stack.append(unpack("<i", read(4))[0])
        elif key == b"K":
            stack.append(read(1)[0])
        elif key == b"M":
            stack.append(unpack("<H", read(2))[0])
        elif key == b"G":
            stack.append(unpack(">d", read(8))[0])
        elif key == b"X":
            n = unpack("<I", read(4))[0]
            stack.append(str(read(n), "utf-8", "surrogatepass"))
        elif key == b"U":
            n = read(1)[0]
            stack.append(read(n).decode("utf-8", "strict"))  # torch.load's default encoding
        elif key in (b"h", b"j"):
            stack.append(self.memo[(read(1) if key == b"h" else unpack("<I", read(4)))[0]])
        elif key in (b"q", b"r"):
            i = (read(1) if key == b"q" else unpack("<I", read(4)))[0]
            self.memo[i] = stack[-1]
        elif key == b"\x8a":
            n = read(1)[0]
            stack.append(int.from_bytes(read(n), "little", signed=True))
        elif key == b"\x80":
            read(1)[0]  # the protocol (PyTorch only warns about one other than 2)
        elif key == b".":
            return True, stack.pop()
        else:
            raise pickle.UnpicklingError(f"Unsupported operand {key[0]}")
        return False, None

    def _global(self) -> None:
        module = self.file.readline()[:-1].decode("utf-8")
        name = self.file.readline()[:-1].decode("utf-8")
        if (module, name) in _compat_pickle.NAME_MAPPING:  # Python 2's names, as pickle maps them
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        path = f"{module}.{name}"
        if path in _ALLOWED:
            self.stack.append(_ALLOWED[path])
            return
        if module in _BLOCKED:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {path} whose module {module} is blocked.")
        if path.startswith("builtins"):
            rest = path[len("builtins"):]
            path = rest[1:] if rest.startswith(".") else "builtins" + rest
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {path} was not an allowed global by default. Please use "
            f"`torch.serialization.add_safe_globals([{path}])` or the `torch.serialization.safe_globals([{path}])` "
            "context manager to allowlist this global if you trust this class/function.")

    def _object_op(self, key: bytes) -> None:
        """NEWOBJ, REDUCE, BUILD and BINPERSID: only the allowed globals build objects."""
        stack, allowed = self.stack, list(_ALLOWED.values())
        if key == b"\x81":
            args = stack.pop()
            cls = stack.pop()
            if cls not in allowed:
                raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted via "
                                             f"`add_safe_globals` but got {cls}")
            stack.append(cls.__new__(cls, *args))
            return
        if key == b"R":
            args = stack.pop()
            func = stack[-1]
            if func not in allowed:
                message = f"Trying to call reduce for unrecognized function {func}"
                if hasattr(func, "__self__"):
                    message += f" which belongs to {func.__self__}"
                raise pickle.UnpicklingError(message)
            stack[-1] = func(*args)
            return
        if key == b"b":
            state = stack.pop()
            inst = stack[-1]
            if type(inst) is OrderedDict:
                inst.__dict__.update(state)
            elif type(inst) in allowed and hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:  # (the allowed types all have __setstate__)
                raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                                             f"`add_safe_globals`, but got {type(inst)}")
            return
        pid = stack.pop()
        if type(pid) is not tuple and type(pid) is not int:
            raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
        if type(pid) is tuple and len(pid) > 0:
            first = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
            if first != "storage":
                raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
        raise pickle.UnpicklingError("unsupported persistent id encountered")

    def _check_dict(self, opcode: str) -> None:
        if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
            raise pickle.UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, "
                                         f"but got {type(self.stack[-1])}")
