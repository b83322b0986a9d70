"""torch.utils._pytree as library code uses it to walk nested batches and states: tree_flatten /
tree_unflatten round trips over dicts, tuples, lists, namedtuples and None, tree_map with several trees,
tree_map_only by type, tree_leaves / tree_structure, tree_all / tree_any, registering a custom container
(register_pytree_node) and a dataclass, moving a nested batch to a dtype, and the errors of mismatched trees."""

import dataclasses
from collections import OrderedDict, namedtuple

import torch
import torch.utils._pytree as pytree

Pair = namedtuple("Pair", ["left", "right"])

batch = {
    "image": torch.arange(6.0).view(2, 3),
    "meta": (torch.tensor([1, 2]), "name", None),
    "targets": [Pair(torch.tensor(0.5), 3), {"mask": torch.tensor([True, False])}],
}
leaves, spec = pytree.tree_flatten(batch)
print("num_leaves", len(leaves), spec.num_leaves, [type(x).__name__ for x in leaves])
print("leaf_types", [x.dtype if isinstance(x, torch.Tensor) else x for x in leaves])
rebuilt = pytree.tree_unflatten(leaves, spec)
print("round_trip", list(rebuilt), type(rebuilt["targets"][0]).__name__, rebuilt["meta"][1],
      torch.equal(rebuilt["image"], batch["image"]))
doubled = pytree.tree_map(lambda x: x * 2 if isinstance(x, torch.Tensor) else x, batch)
print("tree_map", doubled["image"].tolist(), doubled["targets"][0].left.item(), doubled["targets"][0].right,
      doubled["meta"][1])
as_half = pytree.tree_map_only(torch.Tensor, lambda t: t.half() if t.is_floating_point() else t, batch)
print("map_only", as_half["image"].dtype, as_half["meta"][0].dtype, as_half["targets"][1]["mask"].dtype)
counted = pytree.tree_map_only(int, lambda v: v + 100, batch)
print("map_only_int", counted["targets"][0].right, counted["meta"][2])
print("leaves", len(pytree.tree_leaves(batch)), pytree.tree_leaves([1, (2, [3]), {"a": 4}]))
print("all_any", pytree.tree_all(lambda x: x is not None, [1, 2]), pytree.tree_any(lambda x: x == 3, [1, (2, 3)]))
print("structure_eq", pytree.tree_structure([1, (2, 3)]) == pytree.tree_structure([5, (6, 7)]),
      pytree.tree_structure([1, (2, 3)]) == pytree.tree_structure([1, [2, 3]]))
summed = pytree.tree_map(lambda a, b: a + b, {"x": 1, "y": (2, 3)}, {"x": 10, "y": (20, 30)})
print("multi_tree", summed)
print("ordered", pytree.tree_map(lambda v: -v, OrderedDict(b=1, a=2)))
print("none_leaf", pytree.tree_flatten(None)[0], pytree.tree_flatten([None, 1])[0])
print("scalar_tree", pytree.tree_flatten(5)[0], pytree.tree_unflatten([7], pytree.tree_structure(5)))
print("empty", pytree.tree_flatten({})[0], pytree.tree_flatten(())[1].num_leaves)
print("key_order", pytree.tree_leaves({"b": 1, "a": 2}))


class Box:
    def __init__(self, content, label):
        self.content, self.label = content, label


pytree.register_pytree_node(
    Box,
    lambda b: ([b.content], b.label),
    lambda children, label: Box(children[0], label),
)
boxed = {"box": Box(torch.ones(2), "weights"), "n": 1}
bl, bs = pytree.tree_flatten(boxed)
print("custom_flatten", len(bl), [type(x).__name__ for x in bl])
mapped = pytree.tree_map(lambda x: x * 3 if isinstance(x, torch.Tensor) else x, boxed)
print("custom_map", type(mapped["box"]).__name__, mapped["box"].content.tolist(), mapped["box"].label)


@dataclasses.dataclass
class State:
    step: int
    params: dict


pytree.register_pytree_node(
    State,
    lambda s: ([s.step, s.params], None),
    lambda children, _: State(*children),
)
st = State(3, {"w": torch.tensor([1.0, -1.0])})
print("dataclass_leaves", len(pytree.tree_leaves(st)))
st2 = pytree.tree_map(lambda x: x + 1, st)
print("dataclass_map", type(st2).__name__, st2.step, st2.params["w"].tolist())

cast = pytree.tree_map_only(torch.Tensor, lambda t: t.to(torch.float64) if t.is_floating_point() else t, batch)
print("to_double", [x.dtype for x in pytree.tree_leaves(cast) if isinstance(x, torch.Tensor)])

for label, fn in [("mismatch_len", lambda: pytree.tree_map(lambda a, b: a + b, [1, 2], [1, 2, 3])),
                  ("mismatch_keys", lambda: pytree.tree_map(lambda a, b: a + b, {"x": 1}, {"y": 1})),
                  ("unflatten_short", lambda: pytree.tree_unflatten([1], pytree.tree_structure([1, 2])))]:
    try:
        fn()
        print(label, "no error")
    except Exception as e:
        print(label, type(e).__name__)
