"""Flattening a nested state dict to dotted keys, as PyTorch's DCP names them, and writing values back."""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor

Path = tuple  # the keys and list indices that lead from the state dict to a value


def _is_leaf(value: Any) -> bool:
    """PyTorch's rule: dicts are walked; a list is walked when it holds a tensor, or a dict or list that is
    walked; anything else (a tuple, a list of numbers, a string) is saved whole."""
    if isinstance(value, dict):
        return False
    if not isinstance(value, list):
        return True
    return not any(isinstance(v, Tensor) or (isinstance(v, (dict, list)) and not _is_leaf(v)) for v in value)


def flatten(state_dict: dict) -> tuple[dict[str, Any], dict[str, Path], dict[str, Path]]:
    """Every leaf of `state_dict` under its dotted name, the path to it, and the path PyTorch records
    (dict keys as strings, list indices as ints). An empty dict has no leaf."""
    flat: dict[str, Any] = {}
    paths: dict[str, Path] = {}
    named: dict[str, Path] = {}

    def walk(value: Any, path: Path, name: Path) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, path + (k,), name + (str(k),))
        elif _is_leaf(value):
            fqn = ".".join(str(p) for p in name)
            flat[fqn], paths[fqn], named[fqn] = value, path, name
        else:
            for i, v in enumerate(value):
                walk(v, path + (i,), name + (i,))

    walk(state_dict, (), ())
    return flat, paths, named


def set_at(state_dict: dict, path: Path, value: Any) -> None:
    """Put `value` where `path` leads in `state_dict`."""
    parent = state_dict
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = value
