"""`LBFGS`: limited-memory BFGS over all parameters as one flat vector, with PyTorch's update rules
and its optional strong-Wolfe line search (Nocedal & Wright, Algorithms 3.5 and 3.6).

Each `step(closure)` runs up to `max_iter` iterations, re-evaluating `closure` (which zeroes the
gradients, computes the loss and calls `backward`) as the iterations and the line search need.
The direction comes from the two-loop recursion over the last `history_size` curvature pairs
(s, y) kept in `state`, so successive `step` calls continue one run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ember import autograd as ea
from ember.core import Tensor
from ember.optim.optimizer import Optimizer

__all__ = ["LBFGS"]


def _cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                       bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to `bounds` (default: the
    interval between x1 and x2); the interval's midpoint where the cubic has no real minimiser. The slopes may be
    0-dim tensors (the line search's), so the arithmetic runs in their dtype as PyTorch's does."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 * d1 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    d2 = d2_square ** 0.5
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


def _strong_wolfe(obj_func: Callable, x: list[Tensor], t: float, d: Tensor, f: float, g: Tensor, gtd: float,
                  c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple[float, Tensor, float, int]:
    """A step `t` along `d` satisfying the strong Wolfe conditions: bracket, then zoom by cubic
    interpolation. Returns (loss, flat gradient, t, function evaluations).

    The slopes `gtd` and `d_norm` stay 0-dim tensors of the parameters' dtype, as PyTorch's: near a minimum the
    Armijo test `f_new > f + c1 * t * gtd` then rounds as PyTorch's does (in float32, `f + tiny` is `f`), so the
    search stops where PyTorch's stops instead of shrinking the bracket on float64 noise."""
    d_norm = d.abs().max()
    f_new, g_new = obj_func(x, t, d)
    evals, ls_iter = 1, 0
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g.clone(), gtd
    done = False
    # bracketing: grow t until [t_prev, t] holds a point satisfying the conditions
    while ls_iter < max_ls:
        sufficient = not (f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev))
        if sufficient and abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, bracket_gtd = [t], [f_new], [g_new], [gtd_new]
            done = True
            break
        if not sufficient or gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        min_step, max_step = t + 0.01 * (t - t_prev), t * 10
        t_next = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.clone(), gtd_new
        t = t_next
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g, bracket_gtd = [0.0, t], [f, f_new], [g, g_new], [gtd, gtd_new]

    # zoom: shrink the bracket; `low` is its end with the lower loss
    insuf_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            # too close to an end: step away from it, unless the previous step already made no progress
            if insuf_progress or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new.clone(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new.clone(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    """L-BFGS (PyTorch's `torch.optim.LBFGS`): one parameter group, a closure required by `step`.

    Args:
        lr: the step length (the first iteration scales it by min(1, 1 / |g|_1)).
        max_iter: iterations per `step`; max_eval: closure evaluations per `step` (max_iter * 5 // 4).
        tolerance_grad: stop when max |g| is at most this; tolerance_change: stop when the step or the
            loss changes by less.
        history_size: curvature pairs kept; line_search_fn: None (fixed step) or "strong_wolfe".
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self) -> Tensor:
        # a sparse gradient (Embedding(sparse=True)) is read dense and a complex one as its real pairs, as PyTorch's
        views = [p.new_zeros(p.numel()) if p.grad is None else p.grad.to_dense().reshape(-1) for p in self._params]
        return ea.cat([ea.view_as_real(v).reshape(-1) if v.is_complex() else v for v in views])

    def _add_grad(self, step_size: float, update: Tensor) -> None:
        offset = 0
        for p in self._params:
            if p.is_complex():
                p = ea.view_as_real(p)
            n = p.numel()
            p.add_(update[offset:offset + n].view_as(p), alpha=step_size)
            offset += n

    def _set_param(self, values: list[Tensor]) -> None:
        for p, v in zip(self._params, values):
            p.copy_(v)

    def _evaluate(self, closure: Callable) -> float:
        with ea.enable_grad():
            loss = closure()
        return float(loss)  # read under the step's no_grad, as PyTorch: no scalar-of-grad warning

    def _directional_evaluate(self, closure: Callable, x: list[Tensor], t: float, d: Tensor) -> tuple[float, Tensor]:
        self._add_grad(t, d)
        loss = self._evaluate(closure)
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @ea.no_grad()
    def step(self, closure: Callable):
        """Run up to `max_iter` L-BFGS iterations; returns the loss `closure` gave before the first one."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure: step(closure) re-evaluates the model")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search_fn = group["history_size"], group["line_search_fn"]

        # the whole run's state lives on the first parameter, as in PyTorch's state dicts
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with ea.enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if float(flat_grad.abs().max()) <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                # the new curvature pair, kept only when it keeps the inverse Hessian positive definite; the
                # scalars stay 0-dim tensors of the parameters' dtype, as PyTorch's (its arithmetic and state)
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                # two-loop recursion: d = -H g
                al = state.setdefault("al", [None] * history_size)  # kept in the state, as PyTorch keeps it
                q = flat_grad.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-float(al[i]))
                d = r = q.mul(H_diag)
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=float(al[i] - be_i))

            prev_flat_grad = flat_grad.clone()
            prev_loss = loss
            t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)  # a 0-dim tensor, as PyTorch's (the line search computes in its dtype)
            if gtd > -tolerance_change:  # not a descent direction
                break

            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":  # checked where the search would run, as PyTorch's
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd)
                self._add_grad(t, d)
                opt_cond = float(flat_grad.abs().max()) <= tolerance_grad
            else:
                self._add_grad(t, d)
                ls_func_evals = 0
                opt_cond = False
                if n_iter != max_iter:  # the last iteration's loss is left to the next step's first evaluation
                    loss = self._evaluate(closure)
                    flat_grad = self._gather_flat_grad()
                    opt_cond = float(flat_grad.abs().max()) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if float(d.mul(t).abs().max()) <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update({"d": d, "t": t, "old_dirs": old_dirs, "old_stps": old_stps, "ro": ro, "H_diag": H_diag,
                      "prev_flat_grad": prev_flat_grad, "prev_loss": prev_loss})
        return orig_loss
