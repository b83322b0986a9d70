"""Module backward hooks: identity `Function`s around a module's inputs and outputs.

The node on the outputs sees `grad_output` (and runs the backward pre-hooks); the node on the
inputs, reached later by the engine, sees `grad_input` and runs the full backward hooks with both,
letting them replace `grad_input`, as PyTorch's `register_full_backward_hook`.
"""

from __future__ import annotations

from collections.abc import Callable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops._util import warn_at_caller

__all__ = ["BackwardHook"]


class BackwardHookFunction(ea.Function):
    """Returns its tensors unchanged; its backward hands the incoming gradients to `callback`. As PyTorch's, a tensor
    that requires no grad comes back non-differentiable (its gradient: zeros), and on the outputs (`materialize`
    False) an output no gradient reached has None."""

    @staticmethod
    def forward(ctx, callback, materialize, *tensors):
        ctx.callback = callback
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        ctx.set_materialize_grads(materialize)
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, None, *ctx.callback(grads))


def _wrap(tensors: list[Tensor], callback: Callable, materialize: bool = True) -> list[Tensor]:
    return list(BackwardHookFunction.apply(callback, materialize, *tensors))


class BackwardHook:
    """The hooks of one module call: set up on its inputs before `forward`, on its outputs after."""

    def __init__(self, module, hooks: dict, pre_hooks: dict) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = 0
        self.tensor_positions: list[int] = []
        self.inputs_hooked = False

    def _call_full_hooks(self, tensor_grads: tuple) -> tuple:
        """The full hooks on the gradients of the tensor arguments, shown with a None for every other positional
        argument, as PyTorch packs them."""
        if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs: no hooks
            return tensor_grads
        full = [None] * self.n_inputs
        for i, g in zip(self.tensor_positions, tensor_grads):
            full[i] = g
        grad_input = tuple(full)
        for hook in list(self.hooks.values()):
            result = hook(self.module, grad_input, self.grad_outputs)
            if result is None:
                continue
            result = tuple(result) if isinstance(result, tuple | list) else (result,)
            if len(result) != len(grad_input):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(result)}, but "
                                   f"expected {len(grad_input)}")
            grad_input = result
        return tuple(grad_input[i] for i in self.tensor_positions)

    def _on_output_grads(self, grads: tuple) -> tuple:
        for hook in list(self.pre_hooks.values()):
            result = hook(self.module, grads)
            if result is not None:
                result = tuple(result) if isinstance(result, tuple | list) else (result,)
                if len(result) != len(grads):
                    raise RuntimeError("Backward pre hook returned an invalid number of grad_output, got "
                                       f"{len(result)}, but expected {len(grads)}")
                grads = result
        self.grad_outputs = grads
        if not self.inputs_hooked and self.hooks:
            self._call_hooks_without_input_grads()
        return grads

    def _call_hooks_without_input_grads(self) -> None:
        """No input requires grad: the full hooks fire from the outputs, with a None per positional argument, and
        may not return gradients (PyTorch's warning and error)."""
        warn_at_caller("Full backward hook is firing when gradients are computed with respect to module outputs "
                       "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                       "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")
        grad_inputs = (None,) * self.n_inputs
        for hook in list(self.hooks.values()):
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient should always return "
                                   "None or None for all gradients.")

    def setup_input_hook(self, args: tuple) -> tuple:
        pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs, self.tensor_positions = len(args), pos
        if not (ea.is_grad_enabled() and any(args[i].requires_grad for i in pos)):
            return args
        self.inputs_hooked = True
        new = _wrap([args[i] for i in pos], self._call_full_hooks)
        args = list(args)
        for k, i in enumerate(pos):
            args[i] = new[k]
        return tuple(args)

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        outs = [result] if single else list(result) if isinstance(result, tuple) else None
        if outs is None:
            return result
        pos = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
        if not pos or not ea.is_grad_enabled():
            return result
        new = _wrap([outs[i] for i in pos], self._on_output_grads, False)
        for k, i in enumerate(pos):
            outs[i] = new[k]
        return outs[0] if single else type(result)(outs)
