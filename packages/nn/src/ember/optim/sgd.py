"""`SGD` with momentum, dampening, Nesterov, weight decay and maximize, as PyTorch."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember.core import Tensor
from ember.core.ops.optim_kernels import sgd_step, sgd_update
from ember.core.ops.workers import spread
from ember.core.sparse import SparseTensor, add_sparse_
from ember.optim.optimizer import _NO_BUFFER, SPREAD_MIN, Optimizer, _check_fused, _check_tensor_lr, _flat

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Stochastic gradient descent (sparse gradients too, as PyTorch: `_composite_step`).

    d = g + weight_decay * p; with momentum, b = momentum * b + (1 - dampening) * d (b = d at the
    first step) and d = b (or d + momentum * b with `nesterov`); then p -= lr * d.
    """

    _differentiable_step = True

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        _check_tensor_lr(lr)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
                    "fused": fused}
        super().__init__(params, defaults)
        _check_fused(fused, differentiable, foreach)

    def step(self, closure: Callable | None = None):
        """One SGD update of every parameter with a gradient; returns `closure()`'s loss if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if type(g) is SparseTensor or group["differentiable"]:
                    self._composite_step(p, g, group)
                    continue
                buf = None
                first = False
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = g.detach().clone()
                        state["momentum_buffer"] = buf
                        first = True
                sgd_step(p, g, buf, float(group["lr"]), momentum, group["dampening"], group["weight_decay"],
                         group["nesterov"], group["maximize"], first)
        return loss

    def _composite_step(self, p: Tensor, grad: Tensor, group: dict) -> None:
        """PyTorch's single-tensor update in tensor ops: for a sparse gradient (the momentum buffer is sparse
        too, `buf * momentum + (1 - dampening) * grad` merged as sparse sums are, the parameter taking `-lr`
        times it at its stored positions; weight decay raises PyTorch's add(sparse, dense) error) and for
        `differentiable=True` (recorded by autograd, a Tensor lr that requires grad included)."""
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.detach().clone()
            elif type(grad) is SparseTensor and type(buf) is not SparseTensor:
                add_sparse_(buf.mul_(momentum), grad, alpha=1 - group["dampening"])
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        lr = group["lr"]
        if type(grad) is SparseTensor:
            add_sparse_(p, grad, alpha=-float(lr))
        elif isinstance(lr, Tensor) and lr.requires_grad:
            p.addcmul_(grad, lr, value=-1)
        else:
            p.add_(grad, alpha=-float(lr))

    def _replay_step(self, exact: bool = True) -> Callable[[], None] | None:
        """`step()` as one pass of `sgd_update` calls (NOTE [ An optimizer's step in a compiled plan ]); always
        eager's bits (`exact` is for the optimizers whose kernel has a faster inexact form)."""
        if type(self).step is not SGD.step or any(g["differentiable"] for g in self.param_groups):
            return None  # a subclass's own step, or one autograd records: called as in eager

        def run() -> None:
            if self._step_hooked():
                self.step()
                return
            work = []
            state = self.state  # read at each call: load_state_dict replaces it
            for group in self.param_groups:
                momentum = group["momentum"]
                for p in group["params"]:
                    g = p._grad
                    if g is None:
                        continue
                    pa = _flat(p)
                    ga = ba = buf = None
                    if pa is not None:
                        ga = _flat(g, pa.dtype)
                        if momentum == 0:
                            ba = _NO_BUFFER[pa.dtype.char]
                        elif (buf := state.get(p, {}).get("momentum_buffer")) is not None:
                            ba = _flat(buf, pa.dtype)
                    if ga is None or ba is None or g._shape != p._shape or (buf is not None and buf._shape != p._shape):
                        self.step()  # what eager does with them (a buffer to make, a copy, an error)
                        return
                    work.append((group, p, pa, ga, buf, ba))
            spread(sgd_update, [(pa, ga, ba, float(group["lr"]), group["momentum"], group["dampening"],
                                 group["weight_decay"], group["nesterov"], group["maximize"], False)
                                for group, p, pa, ga, buf, ba in work], 3, SPREAD_MIN)
            for _, p, _, _, buf, _ in work:
                p._storage.version += 1  # the versions the dispatcher bumps after sgd_step
                if buf is not None:
                    buf._storage.version += 1
            self._opt_called = True

        return run




def sgd(params: list[Tensor], d_p_list: list[Tensor], momentum_buffer_list: list[Tensor | None],
        has_sparse_grad: bool = False, foreach: bool | None = None, fused: bool | None = None,
        grad_scale: Tensor | None = None, found_inf: Tensor | None = None, *, weight_decay: float, momentum: float,
        lr: float, dampening: float, nesterov: bool, maximize: bool) -> None:
    """PyTorch's functional SGD (`torch.optim.sgd.sgd`): one update of each parameter from its gradient; a None
    momentum buffer is created in `momentum_buffer_list` (as `SGD.step`'s first update makes it)."""
    assert grad_scale is None and found_inf is None  # noqa: S101 (PyTorch's single-tensor path asserts it)
    for i, (p, g) in enumerate(zip(params, d_p_list)):
        buf, first = None, False
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = momentum_buffer_list[i] = g.detach().clone()
                first = True
        sgd_step(p, g, buf, float(lr), momentum, dampening, weight_decay, nesterov, maximize, first)
