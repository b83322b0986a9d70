"""`torch.utils._pytree`: nested containers (tuples, lists, dicts, namedtuples, OrderedDict, defaultdict,
deque, and registered classes) flattened to their leaves and a `TreeSpec` that rebuilds them; `tree_map`
and friends. Research code maps over model outputs and batches with it; ember.torch gives PyTorch's
public functions with its flattening order (a dict's insertion order) and error messages.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

__all__ = ["PyTree", "Context", "FlattenFn", "UnflattenFn", "TreeSpec", "LeafSpec", "keystr", "key_get",
           "register_pytree_node", "tree_is_leaf", "tree_flatten", "tree_flatten_with_path", "tree_unflatten",
           "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_with_path",
           "tree_map_", "tree_map_only", "tree_map_only_", "tree_all", "tree_any", "tree_all_only", "tree_any_only",
           "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance", "SequenceKey", "MappingKey",
           "GetAttrKey", "SUPPORTED_NODES"]

PyTree = Any
Context = Any
FlattenFn = Callable[[PyTree], tuple[list, Context]]
UnflattenFn = Callable[[Iterable, Context], PyTree]


class NodeDef(NamedTuple):
    type: type
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn
    flatten_with_keys_fn: Callable | None


SUPPORTED_NODES: dict[type, NodeDef] = {}


# --- keys (paths to leaves) -----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp: tuple) -> str:
    """A key path as source text: `[0]['a'].x`."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp: tuple):
    """The element of `obj` at key path `kp`."""
    for k in kp:
        obj = k.get(obj)
    return obj


def register_pytree_node(cls: type, flatten_fn: FlattenFn, unflatten_fn: UnflattenFn, *,
                         serialized_type_name: str | None = None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn: Callable | None = None) -> None:
    """Make instances of `cls` tree nodes: `flatten_fn(node) -> (children, context)`,
    `unflatten_fn(children, context) -> node` and, for the `*_with_path` functions,
    `flatten_with_keys_fn(node) -> ([(key, child), ...], context)`."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)


_register_pytree_node = register_pytree_node


def is_namedtuple_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    """Whether `obj` is a namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    """Whether `cls` is a result class of `torch.return_types` (PyTorch's structseqs)."""
    from ember.core.ops.structseq import is_structseq_class as _is

    return _is(cls)


def is_structseq_instance(obj) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj) -> bool:
    """Whether `obj` is a `torch.return_types` class or instance."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


class namedtuple:  # noqa: N801 - the name PyTorch's specs print
    """The node kind of every namedtuple class (its context is the class)."""


def _kind(node) -> type | None:
    """The registered node type of `node`, or None for a leaf."""
    t = type(node)
    if t in SUPPORTED_NODES:
        return t
    if is_namedtuple_class(t):
        return namedtuple
    return None


def _seq_keys(t):
    return [(SequenceKey(i), v) for i, v in enumerate(t)], None


def _map_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


register_pytree_node(tuple, lambda t: (list(t), None), lambda xs, c: tuple(xs), flatten_with_keys_fn=_seq_keys)
register_pytree_node(list, lambda t: (list(t), None), lambda xs, c: list(xs), flatten_with_keys_fn=_seq_keys)
register_pytree_node(dict, lambda d: (list(d.values()), list(d.keys())), lambda xs, c: dict(zip(c, xs)),
                     flatten_with_keys_fn=_map_keys)
register_pytree_node(collections.OrderedDict, lambda d: (list(d.values()), list(d.keys())),
                     lambda xs, c: collections.OrderedDict(zip(c, xs)), flatten_with_keys_fn=_map_keys)
register_pytree_node(collections.defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
                     lambda xs, c: collections.defaultdict(c[0], zip(c[1], xs)),
                     flatten_with_keys_fn=lambda d: (_map_keys(d)[0], [d.default_factory, list(d.keys())]))
register_pytree_node(collections.deque, lambda d: (list(d), d.maxlen), lambda xs, c: collections.deque(xs, c),
                     flatten_with_keys_fn=lambda d: (_seq_keys(d)[0], d.maxlen))
SUPPORTED_NODES[namedtuple] = NodeDef(namedtuple, lambda t: (list(t), type(t)), lambda xs, c: c(*xs),
                                           lambda t: ([(GetAttrKey(f), v) for f, v in zip(t._fields, t)], type(t)))


_DICT_TYPES = frozenset({dict, collections.OrderedDict, collections.defaultdict})
_BUILTIN_TYPES = frozenset({tuple, list, namedtuple, collections.deque}) | _DICT_TYPES


# --- specs ---------------------------------------------------------------------------------------
class TreeSpec:
    """The structure of a pytree: a node type, its context (keys, a namedtuple class ...) and its children's
    specs; a leaf's spec is `LeafSpec()` (printed `*`)."""

    def __init__(self, type: type | None, context: Context, children_specs: list[TreeSpec]) -> None:  # noqa: A002
        self.type = type
        self.context = context
        self.children_specs = list(children_specs)
        self.num_nodes = 1 + sum(c.num_nodes for c in self.children_specs)
        self.num_leaves = sum(c.num_leaves for c in self.children_specs) if type is not None else 1
        self.num_children = len(self.children_specs)

    def is_leaf(self) -> bool:
        return self.type is None

    def children(self) -> list[TreeSpec]:
        return list(self.children_specs)

    def child(self, index: int) -> TreeSpec:
        return self.children_specs[index]

    def flatten_up_to(self, tree: PyTree) -> list:
        """The subtrees of `tree` at this spec's leaves (`tree` must have this structure down to them; the standard
        dicts match one another by their keys, in any order)."""
        if self.is_leaf():
            return [tree]
        kind = namedtuple if is_namedtuple_instance(tree) else type(tree)
        if self.type not in _BUILTIN_TYPES:  # a registered class must match exactly, context included
            if kind is not self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {kind!r}.")
            children, context = SUPPORTED_NODES[kind].flatten_fn(tree)
            if len(children) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
            if context != self.context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            both_dicts = self.type in _DICT_TYPES and kind in _DICT_TYPES
            if not both_dicts and kind is not self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {kind!r}.")
            if len(tree) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(tree)}.")
            if both_dicts:  # a defaultdict's factory may differ
                keys = self.context[1] if self.type is collections.defaultdict else self.context
                missing, extra = set(keys) - set(tree), set(tree) - set(keys)
                if missing or extra:
                    raise ValueError("Node keys mismatch" + (f"; missing key(s): {missing}" if missing else "")
                                     + (f"; extra key(s): {extra}" if extra else "") + ".")
                children = [tree[k] for k in keys]
            else:
                children, context = SUPPORTED_NODES[kind].flatten_fn(tree)
                if kind is not collections.deque and context != self.context:  # a deque's maxlen may differ
                    raise ValueError(f"Node context mismatch for node type {self.type!r}; expected "
                                     f"{self.context!r}, but got {context!r}.")
        return [x for c, spec in zip(children, self.children_specs) for x in spec.flatten_up_to(c)]

    def unflatten(self, leaves: Iterable) -> PyTree:
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to "
                             f"a pytree that holds {self.num_leaves} items ({self}).")
        return self._build(iter(leaves))

    def _build(self, it):
        if self.is_leaf():
            return next(it)
        return SUPPORTED_NODES[self.type].unflatten_fn([c._build(it) for c in self.children_specs], self.context)

    def __eq__(self, other) -> bool:
        return isinstance(other, TreeSpec) and (self.type, self.context, self.children_specs) == (
            other.type, other.context, other.children_specs)

    def __hash__(self) -> int:
        return hash((self.type, self.num_leaves, self.num_children))

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        text = ""
        if self.children_specs:
            indent += 2
            text = self.children_specs[0].__repr__(indent) + ("," if self.num_children > 1 else "")
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children_specs[1:])
        return f"TreeSpec({self.type.__name__}, {self.context}, [{text}])"


class LeafSpec(TreeSpec):
    """The spec of a leaf."""

    def __init__(self) -> None:
        super().__init__(None, None, [])


def _is_leaf(tree, is_leaf) -> bool:
    return (is_leaf is not None and is_leaf(tree)) or _kind(tree) is None


def tree_is_leaf(tree: PyTree, is_leaf: Callable | None = None) -> bool:
    """Whether `tree` is a leaf (not a registered container, or `is_leaf(tree)`)."""
    return _is_leaf(tree, is_leaf)


def tree_flatten(tree: PyTree, is_leaf: Callable | None = None) -> tuple[list, TreeSpec]:
    """`(leaves, spec)`: the leaves in order (a dict's in insertion order) and the structure that
    `tree_unflatten(leaves, spec)` rebuilds."""
    leaves: list = []

    def walk(node) -> TreeSpec:
        if _is_leaf(node, is_leaf):
            leaves.append(node)
            return LeafSpec()
        kind = _kind(node)
        children, context = SUPPORTED_NODES[kind].flatten_fn(node)
        return TreeSpec(kind, context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves: Iterable, treespec: TreeSpec) -> PyTree:
    """The pytree of structure `treespec` holding `leaves`."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: Callable | None = None):
    """The leaves of `tree`, one at a time."""
    if _is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_kind(tree)].flatten_fn(tree)
    for c in children:
        yield from tree_iter(c, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: Callable | None = None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Callable | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func: Callable, tree: PyTree, *rests: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """A pytree like `tree` whose leaves are `func(leaf, *same leaf of each of rests)`."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(leaves, *others))


def tree_map_(func: Callable, tree: PyTree, *rests: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """Call `func` on each leaf (with the matching leaves of `rests`) for its effect; returns `tree`."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    for xs in zip(leaves, *others):
        func(*xs)
    return tree


def _only(types, func: Callable) -> Callable:
    return lambda x: func(x) if isinstance(x, types) else x


def tree_map_only(type_or_types, func: Callable, tree: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """`tree_map` applying `func` to the leaves of the given type(s) only; other leaves stay as they are."""
    return tree_map(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types, func: Callable, tree: PyTree, is_leaf: Callable | None = None) -> PyTree:
    return tree_map_(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf))


def tree_any(pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf))


def tree_all_only(type_or_types, pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_flatten_with_path(tree: PyTree, is_leaf: Callable | None = None) -> tuple[list, TreeSpec]:
    """`([(key_path, leaf), ...], spec)`: each leaf with the keys that reach it (see `keystr`, `key_get`)."""
    return list(_with_path(tree, (), is_leaf)), tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree: PyTree, is_leaf: Callable | None = None) -> list:
    return list(_with_path(tree, (), is_leaf))


def tree_map_with_path(func: Callable, tree: PyTree, *rests: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """`tree_map` whose `func(key_path, leaf, *rest_leaves)` also gets each leaf's key path."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(kp, x, *xs) for (kp, x), *xs in zip(pairs, *others))


def _with_path(tree, path: tuple, is_leaf):
    if _is_leaf(tree, is_leaf):
        yield path, tree
        return
    node = SUPPORTED_NODES[_kind(tree)]
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {type(tree)}. Please pass a "
                         "flatten_with_keys_fn argument to register_pytree_node.")
    key_children, _ = node.flatten_with_keys_fn(tree)
    for key, c in key_children:
        yield from _with_path(c, path + (key,), is_leaf)
