"""`Adam` and `AdamW` (with amsgrad and maximize), as PyTorch."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.core.ops.optim_kernels import adam_kernel, adam_scalars, adam_step
from ember.core.ops.workers import spread
from ember.optim.optimizer import (
    _NO_BUFFER, SPREAD_MIN, Optimizer, _check_capturable, _check_fused, _check_tensor_lr, _flat, _FlatViews,
    _refuse_sparse, _step_tensor)

__all__ = ["Adam", "adam"]  # PyTorch's (AdamW is torch.optim.adamw's)


def _check_args(lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
    _check_tensor_lr(lr)
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015): m = lerp(m, g, 1 - beta1), v = beta2 v + (1 - beta2) g^2,
    p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).

    `weight_decay` adds weight_decay * p to the gradient (L2); `decoupled_weight_decay=True` (AdamW)
    multiplies p by 1 - lr * weight_decay instead.
    """

    _tensor_scalars = ("step",)
    _differentiable_step = True

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        _check_args(lr, betas, eps, weight_decay)
        # PyTorch's Adam alone insists on one kind: an int beta such as (0, 0.999) is refused.
        if not all(isinstance(b, float) for b in betas[:2]) and not all(isinstance(b, Tensor) for b in betas[:2]):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        _check_fused(fused, differentiable, foreach)

    def _init_state(self, p: Tensor, amsgrad: bool) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = ea.tensor(0.0)
            state["exp_avg"] = ea.zeros_like(p, memory_format=ea.preserve_format)
            state["exp_avg_sq"] = ea.zeros_like(p, memory_format=ea.preserve_format)
            if amsgrad:
                state["max_exp_avg_sq"] = ea.zeros_like(p, memory_format=ea.preserve_format)
        return state

    def step(self, closure: Callable | None = None):
        """One Adam update of every parameter with a gradient; returns `closure()`'s loss if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _refuse_sparse(group, "Adam does not support sparse gradients, please consider SparseAdam instead")
            beta1, beta2 = group["betas"]
            amsgrad = group["amsgrad"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                _check_capturable(group, p)
                state = self._init_state(p, amsgrad)
                if group["differentiable"]:
                    self._recorded_step(p, p.grad, state, group)
                    continue
                step = float(_step_tensor(state)) + 1
                state["step"].fill_(step)
                adam_step(p, p.grad, state["exp_avg"], state["exp_avg_sq"], state.get("max_exp_avg_sq"), step,
                          float(group["lr"]), beta1, beta2, group["eps"], group["weight_decay"], amsgrad,
                          group["maximize"], group["decoupled_weight_decay"])
        return loss

    @staticmethod
    def _recorded_step(p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        """`differentiable=True`: PyTorch's single-tensor update in tensor ops, which autograd records (the bias
        corrections from the step tensor, the moments cloned where the parameter's update reads them)."""
        beta1, beta2 = group["betas"]
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        step = state["step"].add_(1)
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(p, alpha=weight_decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad.conj(), value=1 - beta2)
        step_size_neg = (lr / (1 - beta1**step)).neg()
        bias_correction2_sqrt = (1 - beta2**step).sqrt()
        second = exp_avg_sq
        if group["amsgrad"]:
            second = state["max_exp_avg_sq"]
            second.copy_(ea.maximum(second.clone(), exp_avg_sq))
        denom = (second.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
        p.addcdiv_(exp_avg.clone(), denom)

    def _replay_step(self, exact: bool = True) -> Callable[[], None] | None:
        """`step()` as one pass of Adam kernel calls (NOTE [ An optimizer's step in a compiled plan ]); `exact`
        False lets the kernel multiply by 1 / sqrt(bc2) instead of dividing (an ulp off PyTorch's bits, faster)."""
        if type(self).step is not Adam.step or any(g["differentiable"] for g in self.param_groups):
            return None  # a subclass's own step, or one autograd records: called as in eager
        flat = _FlatViews()
        kernel = adam_kernel()
        # id(p) -> (p, its state dict, amsgrad, (p, step, m, v, vm), their `_npc`s, their flat arrays): reused while
        # the state holds the same tensors over the same arrays (Python per parameter: 5.9 -> 3 us)
        memo: dict[int, tuple] = {}

        def views(p, st, amsgrad: bool) -> tuple | None:
            """The memo entry of `p`, or None where `step()` must run (state to make, a copy, an error)."""
            pa = flat(p)
            if pa is None:
                return None
            s, m, v, vm = st["step"], st["exp_avg"], st["exp_avg_sq"], st.get("max_exp_avg_sq")
            sa, ma, va = flat(s), flat(m, pa.dtype), flat(v, pa.dtype)
            vma = flat(vm, pa.dtype) if vm is not None else _NO_BUFFER[pa.dtype.char]
            if (sa is None or ma is None or va is None or vma is None or (amsgrad and vm is None)
                    or m._shape != p._shape or v._shape != p._shape or (vm is not None and vm._shape != p._shape)):
                return None
            ts = (p, s, m, v, vm)
            return p, st, amsgrad, ts, tuple(t._npc if t is not None else None for t in ts), (pa, sa, ma, va, vma)

        def run() -> None:
            if self._step_hooked():
                self.step()
                return
            work = []
            state = self.state  # read at each call: load_state_dict replaces it
            for group in self.param_groups:
                amsgrad = group["amsgrad"]
                for p in group["params"]:
                    g = p._grad
                    if g is None:
                        continue
                    st = state.get(p)
                    if not st:
                        self.step()
                        return
                    e = memo.get(id(p))
                    if e is not None:
                        ts, npcs = e[3], e[4]
                        if not (e[0] is p and e[1] is st and e[2] == amsgrad and st["step"] is ts[1]
                                and st["exp_avg"] is ts[2] and st["exp_avg_sq"] is ts[3]
                                and st.get("max_exp_avg_sq") is ts[4] and p._npc is npcs[0]
                                and npcs[0][0] is p._storage._raw and ts[1]._npc is npcs[1]
                                and npcs[1][0] is ts[1]._storage._raw and ts[2]._npc is npcs[2]
                                and npcs[2][0] is ts[2]._storage._raw and ts[3]._npc is npcs[3]
                                and npcs[3][0] is ts[3]._storage._raw
                                and (ts[4] is None or ts[4]._npc is npcs[4] and npcs[4][0] is ts[4]._storage._raw)):
                            e = None
                    if e is None:
                        e = views(p, st, amsgrad)
                        if e is None:
                            self.step()
                            return
                        memo[id(p)] = e
                    arrays = e[5]
                    ga = _flat(g, arrays[0].dtype)
                    if ga is None or g._shape != p._shape:
                        self.step()
                        return
                    work.append((group, e[3], ga, arrays))
            last = last_step = scalars = None
            calls = []
            for group, ts, ga, (pa, sa, ma, va, vma) in work:
                step = float(sa[0]) + 1  # float(state["step"]) + 1, then state["step"].fill_(step)
                sa[0] = step
                if group is not last or step != last_step or scalars[0].dtype != pa.dtype:
                    last, last_step = group, step  # a group's parameters share their step count: one set of scalars
                    beta1, beta2 = group["betas"]
                    scalars = adam_scalars(pa.dtype.type, step, float(group["lr"]), beta1, beta2, group["eps"],
                                           group["weight_decay"], group["amsgrad"] and vma.size > 0, group["maximize"],
                                           group["decoupled_weight_decay"], reciprocal=not exact)
                calls.append((pa, ga, ma, va, vma, *scalars))
                p, s, m, v, vm = ts  # the versions the dispatcher bumps after fill_ and adam_step
                s._storage.version += 1
                p._storage.version += 1
                m._storage.version += 1
                v._storage.version += 1
                if vma.size:
                    vm._storage.version += 1
            spread(kernel, calls, 5, SPREAD_MIN)
            self._opt_called = True

        return run


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019): p *= 1 - lr * weight_decay."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


def adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
         max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
         capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
         grad_scale: Tensor | None = None, found_inf: Tensor | None = None, has_complex: bool = False,
         decoupled_weight_decay: bool = False, *, amsgrad: bool, beta1: float, beta2: float, lr: float,
         weight_decay: float, eps: float, maximize: bool) -> None:
    """PyTorch's functional Adam (`torch.optim.adam.adam`): one update of each parameter from its gradient and
    state lists, each step tensor incremented in place, by `Adam.step`'s per-parameter update."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    assert grad_scale is None and found_inf is None  # noqa: S101 (PyTorch's single-tensor path asserts it)
    group = {"betas": (beta1, beta2), "lr": lr, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
             "maximize": maximize, "decoupled_weight_decay": decoupled_weight_decay}
    for i, (p, grad, exp_avg, exp_avg_sq, step_t) in enumerate(zip(params, grads, exp_avgs, exp_avg_sqs,
                                                                     state_steps)):
        max_sq = max_exp_avg_sqs[i] if amsgrad else None
        if differentiable:
            state = {"step": step_t, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq, "max_exp_avg_sq": max_sq}
            Adam._recorded_step(p, grad, state, group)
            continue
        step = float(step_t) + 1
        step_t.fill_(step)
        adam_step(p, grad, exp_avg, exp_avg_sq, max_sq, step, float(lr), beta1, beta2, eps, weight_decay, amsgrad,
                  maximize, decoupled_weight_decay)
