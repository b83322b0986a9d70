"""PyTorch's argument parser's "received an invalid combination of arguments" TypeError, worded as its C++
`format_invalid_args` words it, for calls that match none of an op's overloads.

The parser collects the keyword arguments into a `std::unordered_map` (libstdc++) and lists them in that map's
iteration order: `kwargs_order` replays it (the map's string hash, its 13-bucket start and growth, and where a new
node goes: at the front, or first in the bucket it shares), so `x.var(0, unbiased=False, correction=1)` prints
`got (int, correction=int, unbiased=bool)` as PyTorch does. Each overload whose argument count matches the call
gets a "didn't match because" line; an overload's argument names are the last word of each comma-separated part
(`bool keepdim = False` is named "False", `*` is an argument), so only the keywords among the last ones match,
as in PyTorch.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable

__all__ = ["kwargs_order", "invalid_arguments", "overloads", "plausible", "int_like", "int_tuple_error",
           "sizes_function", "sizes_method"]

_MUL = 0xC6A4A7935BD1E995
_MASK = (1 << 64) - 1
_GROWTH = {13: 29, 29: 59, 59: 127, 127: 257, 257: 541}


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


@functools.lru_cache(maxsize=512)
def _hash(key: str) -> int:
    """libstdc++'s `std::hash<std::string>` on 64-bit Linux (`_Hash_bytes`, seed 0xc70f6907)."""
    b = key.encode()
    n = len(b)
    h = (0xC70F6907 ^ (n * _MUL)) & _MASK
    whole = n & ~7
    for i in range(0, whole, 8):
        data = (_shift_mix((int.from_bytes(b[i:i + 8], "little") * _MUL) & _MASK) * _MUL) & _MASK
        h = ((h ^ data) * _MUL) & _MASK
    if n & 7:
        h = ((h ^ int.from_bytes(b[whole:], "little")) * _MUL) & _MASK
    return _shift_mix((_shift_mix(h) * _MUL) & _MASK)


def _place(order: list[str], key: str, buckets: int) -> None:
    b = _hash(key) % buckets
    for i, k in enumerate(order):
        if _hash(k) % buckets == b:
            order.insert(i, key)
            return
    order.insert(0, key)


def kwargs_order(keys) -> list[str]:
    """`keys` (inserted in this order) in the iteration order of a libstdc++ `unordered_map<std::string, ...>`."""
    order: list[str] = []
    buckets = 13
    for key in keys:
        if len(order) + 1 > buckets:  # a rehash re-places the nodes in their current order
            buckets = _GROWTH[buckets]
            old, order = order, []
            for k in old:
                _place(order, k, buckets)
        _place(order, key, buckets)
    return order


def _type_name(v) -> str:
    t = type(v)
    if t.__name__ == "Tensor" or any(c.__name__ == "Tensor" for c in t.__mro__):
        return "Tensor"
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _detailed_name(v) -> str:
    """The type name the "didn't match" lines print: a list's or tuple's element types too (`list of [float]`,
    `tuple of (int,)`), which no declared kind equals."""
    if type(v) is list:
        return f"list of [{', '.join(_type_name(e) for e in v)}]"
    if type(v) is tuple:
        return f"tuple of ({', '.join(_type_name(e) for e in v)}{',' if len(v) == 1 else ''})"
    return _type_name(v)


def _matches(kind: str, v) -> bool:
    """PyTorch's formatter's type test: the Python type's name equals the declared one (float also takes int)."""
    name = _detailed_name(v)
    return name in {"float": ("float", "int"), "int": ("int",)}.get(kind, (kind,))


def _arguments(option: str) -> list[tuple[str, str]]:
    """(type, name) of each comma-separated part of `option`, its name the part's last word."""
    parts = option[1:-1].split(", ") if option != "()" else [""]
    return [(p[:p.rfind(" ")] if " " in p else p, p[p.rfind(" ") + 1:]) for p in parts]


def plausible(options: list[str], n: int) -> list[str]:
    """The overloads whose argument counts admit `n` given arguments (all but the defaulted ones at least, all at
    most): where there is only one, PyTorch's parser raises that overload's own error ("argument 'dim' (position 1)
    must be int, not bool") instead of listing them."""
    def admits(option: str) -> bool:
        parts = [p for p in option[1:-1].split(", ") if p and p != "*"]
        return sum(" = " not in p for p in parts) <= n <= len(parts)
    return [o for o in options if admits(o)]


def invalid_arguments(op: str, args: tuple, kwargs: dict, options: list[str]) -> TypeError:
    """PyTorch's TypeError for `op(*args, **kwargs)` matching none of `options` (its overloads' signatures as it
    prints them, e.g. "(Tensor input, bool unbiased = True)"); `args` exclude a method's `self`."""
    keys = kwargs_order(kwargs)
    got = [_type_name(a) for a in args] + [f"{k}={_type_name(kwargs[k])}" for k in keys]
    desc = "(" + (", ".join(got) if args else "".join(g + ", " for g in got)) + ")"
    lines = [f"{op}() received an invalid combination of arguments - got {desc}, but expected one of:"]
    for option in options:
        lines.append(f" * {option}")
        params = _arguments(option)
        if len(args) + len(kwargs) != len(params):
            continue
        names = [n for _, n in params[max(len(params) - len(kwargs), 0):]]
        unmatched = [k for k in keys if k not in names]
        if unmatched:
            lines.append(f"      didn't match because some of the keywords were incorrect: {', '.join(unmatched)}")
            continue
        given = list(args) + [kwargs[params[i][1]] for i in range(len(args), len(params))]
        marked = [(f"{params[i][1]}=" if i >= len(args) else "") + _detailed_name(v) for i, v in enumerate(given)]
        marked = [m if _matches(params[i][0], v) else f"!{m}!" for i, (m, v) in enumerate(zip(marked, given))]
        desc = "(" + (", ".join(marked) if args else "".join(m + ", " for m in marked)) + ")"
        lines.append(f"      didn't match because some of the arguments have invalid types: {desc}")
    return TypeError("\n".join(lines) + "\n")


def overloads(op: str, options: list[str], invalid: Callable[[tuple, dict], bool], method: bool = False) -> Callable:
    """Decorator: raise `invalid_arguments` for a call that `invalid(args, kwargs)` says matches none of `options`
    (read before Python binds the arguments, so the keywords keep the order they were given in); a `method`'s
    message leaves out `self`."""
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if invalid(args, kwargs):
                raise invalid_arguments(op, args[1:] if method else args, kwargs, options)
            return fn(*args, **kwargs)
        return call
    return deco


def int_like(v, symint: bool = True) -> bool:
    """Whether the parser reads `v` as an int: ints, numpy integers, one-element integer tensors (0-dim ones only
    where the schema's type is `int`, not `SymInt`); not bools."""
    if isinstance(v, bool) or not symint and getattr(v, "ndim", 0) != 0:
        return False
    try:
        operator.index(v)
    except (TypeError, RuntimeError):
        return False
    return True


def int_tuple_error(op: str, name: str, where: str, sizes) -> TypeError | None:
    """The parser's refusal of `sizes` for a tuple-of-ints argument, None when it is one. A bad first element
    refuses the whole ("not tuple") by keyword (`where` empty) and is named by its type by position (`where`
    " (position k)"); a later one is a failed unpack either way."""
    from ember.core.ops._util import tp_name as _type_name

    if not isinstance(sizes, tuple | list):
        return TypeError(f"{op}(): argument '{name}'{where} must be tuple of ints, not {_type_name(sizes)}")
    for i, e in enumerate(sizes):
        if int_like(e):
            continue
        if i == 0 and not where:
            return TypeError(f"{op}(): argument '{name}' must be tuple of ints, not {_type_name(sizes)}")
        if i == 0:
            return TypeError(f"{op}(): argument '{name}'{where} must be tuple of ints, but found element of type "
                             f"{_type_name(e)} at pos 0")
        return TypeError(f"{op}(): argument '{name}' failed to unpack the object at pos {i + 1} with error \"type "
                         f"must be tuple of ints,but got {_type_name(e)}\"")
    return None


def sizes_function(op: str, name: str) -> Callable:
    """Decorator for the function form of a method that takes its sizes as varargs (`x.flip(0, 1)`,
    `x.reshape(2, 3)`): PyTorch reads `torch.flip(input, dims)` as one tuple of ints, so it refuses more positional
    arguments, an int or any other type in its parser's words ("(position 2)" when `name` came by position)."""
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if len(args) > 2:
                raise TypeError(f"{op}() takes 2 positional arguments but {len(args)} were given")
            if len(args) == 1 and name not in kwargs:
                raise TypeError(f'{op}() missing 1 required positional arguments: "{name}"')
            if len(args) == 2 or name in kwargs:
                positional = len(args) == 2
                err = int_tuple_error(op, name, " (position 2)" if positional else "",
                                      args[1] if positional else kwargs[name])
                if err is not None:
                    raise err
            return fn(*args, **kwargs)
        return call
    return deco


def sizes_method(op: str, name: str) -> Callable:
    """Decorator for the method form of those ops: varargs are the method's own, but `name` given by keyword must be
    a list or tuple (`x.flip(dims=1)` is refused as PyTorch refuses it)."""
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if name in kwargs and (err := int_tuple_error(op, name, "", kwargs[name])) is not None:
                raise err
            return fn(*args, **kwargs)
        return call
    return deco
