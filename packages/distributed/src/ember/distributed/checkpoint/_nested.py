"""Flattening a nested state dict to dotted keys (as PyTorch's DCP names them) and writing values back."""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor

Path = tuple  # the keys and list indices that lead from the state dict to a value


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, dict):
        return any(_holds_tensor(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_tensor(v) for v in value)
    return False


def flatten(state_dict: dict) -> tuple[dict[str, Any], dict[str, Path]]:
    """Every leaf of `state_dict` under its dotted name, and the path to it: dicts are walked, and so are
    lists and tuples that hold a tensor; any other value (a list of numbers, a string) is one leaf."""
    flat: dict[str, Any] = {}
    paths: dict[str, Path] = {}

    def walk(value: Any, path: Path) -> None:
        if isinstance(value, dict) and (value or not path):
            for k, v in value.items():
                walk(v, path + (k,))
        elif isinstance(value, (list, tuple)) and _holds_tensor(value):
            for i, v in enumerate(value):
                walk(v, path + (i,))
        else:
            fqn = ".".join(str(p) for p in path)
            flat[fqn] = value
            paths[fqn] = path

    walk(state_dict, ())
    return flat, paths


def set_at(state_dict: dict, path: Path, value: Any) -> None:
    """Put `value` where `path` leads in `state_dict` (a tuple on the way is rebuilt)."""
    parent = state_dict
    for k in path[:-1]:
        parent = parent[k]
    last = path[-1]
    if isinstance(parent, tuple):
        grand = state_dict
        for k in path[:-2]:
            grand = grand[k]
        grand[path[-2]] = parent[:last] + (value,) + parent[last + 1:]
    else:
        parent[last] = value
