"""`OptimizedModule`: what `torch.compile(module)` returns, an `nn.Module` whose calls run compiled."""

from __future__ import annotations

from ember.jit.compiler import CompiledFunction
from ember.nn import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """Wraps `mod` as its submodule `_orig_mod` (so `state_dict` keys start with `_orig_mod.`, as in
    PyTorch); a call runs `mod` through ember.jit's capture and replay (or a callable backend's compiled
    FX graph), other attributes read through."""

    def __init__(self, mod: Module, *, backend="inductor", **options) -> None:
        super().__init__()
        self._orig_mod = mod
        if callable(backend):  # a TorchDynamo FX-graph backend: fed torch.fx's graph of the module
            from ember.torch._dynamo.fx_backend import FxCompiledFunction

            compiled = FxCompiledFunction(mod, backend, fullgraph=options.get("fullgraph", False))
        else:
            compiled = CompiledFunction(mod.__call__, module=mod, **options)
        self.__dict__["_compiled"] = compiled
        self.training = mod.training

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def explain(self):
        """The plans and graph breaks so far (`ember.jit.explain`)."""
        return self._compiled.explain()

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)

    def __setattr__(self, name: str, value) -> None:
        """A new attribute goes to the original module (`compiled.flag = True` is seen by its forward), as
        PyTorch's; the wrapper's own attributes (`training`, `_orig_mod`, ...) stay its own."""
        if name in self.__dict__ or hasattr(type(self), name) or name == "_orig_mod":
            super().__setattr__(name, value)
        else:
            setattr(self.__dict__["_modules"]["_orig_mod"], name, value)

    def __delattr__(self, name: str) -> None:
        if name in self.__dict__ or name == "_orig_mod":
            super().__delattr__(name)
        else:
            delattr(self.__dict__["_modules"]["_orig_mod"], name)
