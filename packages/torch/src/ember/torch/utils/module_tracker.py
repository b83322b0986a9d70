"""`torch.utils.module_tracker.ModuleTracker`: which modules are running (forward, or their backward) at a moment,
by their names from the outermost module down (`"Net.layer1.0"`), always with `"Global"`."""

from __future__ import annotations

import weakref

from ember.autograd import engine
from ember.autograd.graph import register_multi_grad_hook
from ember.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from ember.torch.utils._pytree import tree_flatten

__all__ = ["ModuleTracker"]


class ModuleTracker:
    """Context manager keeping `parents`, the set of names of the modules whose forward (or backward) is running.

    A module enters at its forward pre-hook and leaves at its forward hook; in backward it enters when its
    outputs' gradients are computed and leaves with its inputs'. After a backward, `parents` is `{"Global"}` again.
    """

    def __init__(self) -> None:
        self._parents = {"Global"}
        self._names: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._named: weakref.WeakSet = weakref.WeakSet()
        self._handles: list = []
        self._bw_task: int | None = None

    @property
    def parents(self) -> set:
        """The names of the modules running now (PyTorch's attribute; "Global" always)."""
        self._sync()
        return self._parents

    @parents.setter
    def parents(self, value: set) -> None:
        self._parents = value

    @property
    def is_bw(self) -> bool:
        """Whether a backward pass is running."""
        return engine.current_task_id() != -1

    def _sync(self) -> None:
        """PyTorch resets `parents` when the backward that entered modules ends: do it at the next look."""
        if self._bw_task is not None and self._bw_task not in (t[0] for t in engine._tasks):
            self._parents = {"Global"}
            self._bw_task = None

    def _name_of(self, mod) -> str:
        name = self._names.get(mod)
        if name is None:
            name = self._names[mod] = type(mod).__name__
        if mod not in self._named:
            for child_name, child in mod.named_children():
                self._names[child] = f"{name}.{child_name}"
                self._name_of(child)
            self._named.add(mod)
        return name

    def _enter(self, name: str, backward: bool):
        def fn(*args) -> None:
            if backward:
                self._sync()
                self._bw_task = engine.current_task_id()
            self.parents.add(name)
        return fn

    def _leave(self, name: str):
        def fn(*args) -> None:
            self.parents.discard(name)
        return fn

    def _tensors_needing_grad(self, value) -> list:
        return [t for t in tree_flatten(value)[0] if hasattr(t, "requires_grad") and t.requires_grad]

    def _pre_hook(self, mod, args) -> None:
        self._sync()
        name = self._name_of(mod)
        self._enter(name, False)()
        if tensors := self._tensors_needing_grad(args):
            self._handles.append(register_multi_grad_hook(tensors, self._leave(name)))

    def _post_hook(self, mod, args, output) -> None:
        name = self._name_of(mod)
        self._leave(name)()
        if tensors := self._tensors_needing_grad(output):
            self._handles.append(register_multi_grad_hook(tensors, self._enter(name, True)))

    def __enter__(self) -> ModuleTracker:
        self._pre = register_module_forward_pre_hook(self._pre_hook)
        self._post = register_module_forward_hook(self._post_hook)
        return self

    def __exit__(self, *args) -> None:
        self._pre.remove()
        self._post.remove()
