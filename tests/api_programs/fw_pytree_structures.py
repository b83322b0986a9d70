"""torch.utils._pytree over the structures libraries pass around: namedtuples (nested, with None fields),
dataclasses registered as nodes (register_pytree_node with flatten/unflatten and a context), OrderedDict and
defaultdict, tree_flatten_with_path/keystr, tree_map over several trees, tree_map_only and tree_map_only_ with
type tuples, tree_all/tree_any, TreeSpec equality and num_leaves, and mapping a batch to a dtype and device."""

import collections
import dataclasses
from typing import NamedTuple

import torch
import torch.utils._pytree as pytree

torch.set_printoptions(precision=4)


class Batch(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor
    mask: torch.Tensor | None = None


class Output(NamedTuple):
    logits: torch.Tensor
    aux: dict


Point = collections.namedtuple("Point", ["u", "v"])


@dataclasses.dataclass
class TrainState:
    params: dict
    step: int
    momentum: list


def _flatten_state(s):
    return [s.params, s.momentum], s.step


def _unflatten_state(children, step):
    return TrainState(params=children[0], step=step, momentum=children[1])


pytree.register_pytree_node(TrainState, _flatten_state, _unflatten_state,
                            serialized_type_name="fw_pytree_structures.TrainState")

b = Batch(torch.arange(6.0).reshape(2, 3), torch.tensor([0, 1]))
leaves, spec = pytree.tree_flatten(b)
print("namedtuple leaves", len(leaves), [type(v).__name__ for v in leaves], spec.num_leaves)
rb = pytree.tree_unflatten([t * 2 if isinstance(t, torch.Tensor) else t for t in leaves], spec)
print("rebuilt", type(rb).__name__, rb.x[1], rb.mask)
nested = Output(logits=torch.ones(2, 2), aux={"p": Point(torch.zeros(1), 3.0), "hist": [torch.ones(1), None]})
print("nested leaves", pytree.tree_leaves(nested))
paths = pytree.tree_flatten_with_path(nested)[0]
print("paths", [pytree.keystr(p) for p, _ in paths])

state = TrainState(params={"w": torch.tensor([1.0, -2.0]), "b": torch.tensor(0.5)}, step=7,
                   momentum=[torch.zeros(2), torch.zeros(())])
sl, sspec = pytree.tree_flatten(state)
print("dataclass leaves", len(sl), sspec.num_leaves)
doubled = pytree.tree_map(lambda t: t * 2, state)
print("dataclass mapped", type(doubled).__name__, doubled.step, doubled.params["w"], doubled.momentum[1].shape)
grads = TrainState(params={"w": torch.tensor([0.1, 0.1]), "b": torch.tensor(1.0)}, step=7,
                   momentum=[torch.ones(2), torch.ones(())])
new_mom = pytree.tree_map(lambda m, g: 0.9 * m + g, state, grads)
print("two trees", new_mom.params["w"], new_mom.momentum[0])
try:
    pytree.tree_map(lambda a, b: a + b, state, {"w": 1})
except ValueError as e:
    print("ValueError:", str(e)[:80])

ema = {"w": torch.tensor([1.0, 2.0]), "b": torch.tensor(0.0)}
live = collections.OrderedDict([("b", torch.tensor(1.0)), ("w", torch.tensor([3.0, 3.0]))])
print("dicts matched by key", pytree.tree_map(lambda e, p: 0.5 * e + 0.5 * p, ema, live))
try:
    pytree.tree_map(torch.add, ema, {"w": torch.ones(2), "bias": torch.ones(())})
except ValueError as e:
    print("ValueError:", e)
od = collections.OrderedDict([("z", torch.ones(1)), ("a", torch.zeros(1))])
dd = collections.defaultdict(list, {"k": [torch.ones(2)]})
for name, tree in (("OrderedDict", od), ("defaultdict", dd), ("dict", {"z": 1, "a": 2})):
    lv, sp = pytree.tree_flatten(tree)
    back = pytree.tree_unflatten(lv, sp)
    print(name, [pytree.keystr(p) for p, _ in pytree.tree_flatten_with_path(tree)[0]], type(back).__name__,
          list(back))
print("dict keeps insertion order", pytree.tree_leaves({"z": 1, "a": 2}))

mixed = {"ints": [1, 2], "t": torch.arange(3), "f": 0.5, "s": "keep", "pt": Point(torch.ones(2), 4)}
only = pytree.tree_map_only(torch.Tensor, lambda t: t.float() / 2, mixed)
print("tree_map_only tensors", only["t"], only["ints"], only["pt"].u, only["s"])
only2 = pytree.tree_map_only((int, float), lambda v: v * 10, mixed)
print("tree_map_only numbers", only2["ints"], only2["f"], only2["pt"].v, only2["t"])
print("tree_all", pytree.tree_all(lambda v: v is not None, mixed),
      "tree_any", pytree.tree_any(lambda v: isinstance(v, str), mixed))
print("tree_all_only", pytree.tree_all_only(torch.Tensor, lambda t: t.numel() > 1, mixed))
s1 = pytree.tree_structure(Batch(torch.ones(1), torch.ones(1)))
s2 = pytree.tree_structure(Batch(torch.zeros(3), torch.zeros(3)))
s3 = pytree.tree_structure((torch.ones(1), torch.ones(1), None))
print("spec equality", s1 == s2, s1 == s3, s1.num_leaves, s3.num_leaves, pytree.tree_structure(5).num_leaves)
print("is leaf", pytree.tree_is_leaf(torch.ones(1)), pytree.tree_is_leaf([1]), pytree.tree_is_leaf(None))
try:
    pytree.tree_unflatten([1, 2, 3], s1)
except ValueError as e:
    print("ValueError:", str(e)[:80])


def to(batch, dtype):
    return pytree.tree_map_only(torch.Tensor, lambda t: t.to(dtype) if t.is_floating_point() else t, batch)


moved = to({"inp": b, "extra": [torch.ones(2, dtype=torch.float64)]}, torch.float16)
print("moved", moved["inp"].x.dtype, moved["inp"].y.dtype, moved["extra"][0].dtype, type(moved["inp"]).__name__)
sizes = pytree.tree_map(lambda t: tuple(t.shape) if isinstance(t, torch.Tensor) else t, nested)
print("shapes tree", sizes)
