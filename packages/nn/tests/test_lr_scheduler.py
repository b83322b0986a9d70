"""LR schedulers: lr sequences against PyTorch's closed forms and its own test targets."""

import math
import warnings

import numpy as np
import pytest

import ember.autograd as torch
from ember import nn, optim
from ember.optim import lr_scheduler as S
from ember.optim.swa_utils import SWALR


def make_opt(lr=0.05, cls=optim.SGD, **kw):
    return cls([nn.Parameter(torch.zeros(1))], lr=lr, **kw)


def run(sched, opt, epochs):
    lrs = []
    for _ in range(epochs):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return lrs


CLOSED = [
    (lambda o: S.StepLR(o, step_size=3, gamma=0.1), lambda e: 0.05 * 0.1 ** (e // 3)),
    (lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.5),
     lambda e: 0.05 * 0.5 ** sum(m <= e for m in [2, 5, 5, 9])),
    (lambda o: S.ExponentialLR(o, gamma=0.9), lambda e: 0.05 * 0.9 ** e),
    (lambda o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
     lambda e: 0.001 + (0.05 - 0.001) * (1 + math.cos(math.pi * e / 10)) / 2),
    (lambda o: S.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4),
     lambda e: 0.05 * (0.25 + 0.75 * min(4, e) / 4)),
    (lambda o: S.ConstantLR(o, factor=0.5, total_iters=3), lambda e: 0.05 * (0.5 if e < 3 else 1.0)),
    (lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1)), lambda e: 0.05 / (e + 1)),
    (lambda o: S.PolynomialLR(o, total_iters=4, power=2.0), lambda e: 0.05 * (1 - min(e, 4) / 4) ** 2),
]


@pytest.mark.parametrize("make, closed", CLOSED, ids=["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
                                                      "LinearLR", "ConstantLR", "LambdaLR", "PolynomialLR"])
def test_recursive_form_follows_closed_form(make, closed):
    opt = make_opt()
    sched = make(opt)
    lrs = run(sched, opt, 11)
    for e, lr in enumerate(lrs):
        assert lr == pytest.approx(closed(e), rel=1e-12, abs=1e-15), e
    assert sched.get_last_lr() == [opt.param_groups[0]["lr"]]
    assert sched.last_epoch == 11


def test_step_with_epoch_uses_closed_form_and_warns():
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        sched.step(5)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05 * 0.25)


def test_multiplicative_lr():
    opt = make_opt()
    sched = S.MultiplicativeLR(opt, lambda e: 0.9)
    assert run(sched, opt, 4) == pytest.approx([0.05, 0.045, 0.0405, 0.03645])


def test_sequential_lr_matches_pytorch_targets():
    opt = make_opt()
    s1 = S.ExponentialLR(opt, gamma=0.8)
    s2 = S.StepLR(opt, gamma=0.1, step_size=4)
    sched = S.SequentialLR(opt, schedulers=[s1, s2], milestones=[3])
    targets = [0.05, 0.04, 0.032] + [0.05] * 4 + [0.005] * 4 + [0.0005] * 4 + [0.00005] * 4
    assert run(sched, opt, 19) == pytest.approx(targets, rel=1e-12)
    with pytest.raises(ValueError, match="one more than the number of milestone points"):
        S.SequentialLR(opt, schedulers=[s1, s2], milestones=[3, 4])


def annealing_cos(start, end, pct):
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


@pytest.mark.parametrize("strategy", ["linear", "cos"])
def test_one_cycle_lr_matches_pytorch_targets(strategy):
    opt = make_opt(cls=optim.SGD, momentum=0.5)
    sched = S.OneCycleLR(opt, max_lr=25, final_div_factor=2, base_momentum=1, max_momentum=22, total_steps=10,
                         anneal_strategy=strategy)
    if strategy == "linear":
        lr_t = [1, 13, 25, 21.5, 18, 14.5, 11, 7.5, 4, 0.5]
        m_t = [22, 11.5, 1, 4, 7, 10, 13, 16, 19, 22]
    else:
        lr_t = [1, 13, 25] + [annealing_cos(25, 0.5, k / 7.0) for k in range(1, 8)]
        m_t = [22, 11.5, 1] + [annealing_cos(1, 22, k / 7.0) for k in range(1, 8)]
    lrs, moms = [], []
    for _ in range(10):
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
        opt.step()
        sched.step()
    if strategy == "linear":
        assert lrs == pytest.approx(lr_t) and moms == pytest.approx(m_t)
    else:
        assert lrs[:3] == pytest.approx([1, annealing_cos(1, 25, 0.5), 25]) and lrs[3:] == pytest.approx(lr_t[3:])
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        sched.step()


def test_one_cycle_cycles_adam_beta1():
    opt = make_opt(cls=optim.Adam)
    S.OneCycleLR(opt, max_lr=0.1, total_steps=20)
    assert opt.param_groups[0]["betas"] == (0.95, 0.999)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.OneCycleLR(make_opt(cls=optim.Adagrad), max_lr=0.1, total_steps=5)


def test_reduce_lr_on_plateau():
    opt = make_opt(lr=1.0)
    sched = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2, cooldown=1, min_lr=0.2)
    metrics = [10, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]
    lrs = []
    for m in metrics:
        sched.step(m)
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25]
    assert sched.get_last_lr() == [0.25]
    for _ in range(10):
        sched.step(9)
    assert opt.param_groups[0]["lr"] == 0.2
    maxer = S.ReduceLROnPlateau(make_opt(lr=1.0), mode="max", patience=0, threshold=0.1, threshold_mode="abs")
    maxer.step(1.0)
    maxer.step(1.05)
    assert maxer.optimizer.param_groups[0]["lr"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        S.ReduceLROnPlateau(opt, factor=1.0)


def test_reduce_lr_on_plateau_exact_sequence():
    opt = make_opt(lr=1.0)
    sched = S.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    out = []
    for m in [5, 6, 7, 4, 4, 4, 4]:
        sched.step(m)
        out.append(opt.param_groups[0]["lr"])
    assert out == [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]


def test_reduce_lr_on_plateau_threshold_test_is_private_as_pytorchs():
    # PyTorch 2.13 names it _is_better (a program calling is_better gets AttributeError there too)
    sched = S.ReduceLROnPlateau(make_opt(), mode="max", threshold=0.01)
    assert not hasattr(sched, "is_better")
    assert sched._is_better(0.63, 0.62) and not sched._is_better(0.625, 0.62)


def test_reduce_lr_on_plateau_state_dict_keys_in_pytorchs_order():
    # printed state dicts show the keys in the order PyTorch 2.13's __init__ sets them
    keys = list(S.ReduceLROnPlateau(make_opt(), mode="max").state_dict())
    assert keys == ["factor", "default_min_lr", "min_lrs", "patience", "cooldown", "eps", "last_epoch", "_last_lr",
                    "mode_worse", "mode", "threshold", "threshold_mode", "best", "cooldown_counter", "num_bad_epochs"]


def test_step_counts_as_pytorchs():
    # SequentialLR restarts the next scheduler at a milestone without counting a step; SGDR's step counts none
    opt = make_opt(lr=0.1)
    first, second = S.LinearLR(opt, 0.1, total_iters=2), S.ExponentialLR(opt, 0.5)
    seq = S.SequentialLR(opt, [first, second], milestones=[2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "step before optimizer.step()" warning from the restart either
        run(seq, opt, 4)
    assert (first._step_count, second._step_count) == (2, 3) and second.last_epoch == 2
    assert seq.get_last_lr() == [0.025]
    sgdr = S.CosineAnnealingWarmRestarts(make_opt(), T_0=2)
    sgdr.step()
    sgdr.step(5)
    assert sgdr._step_count == 0 and sgdr.last_epoch == 5


def test_chained_scheduler_checks_its_members_as_sequential_lr():
    opt, other = make_opt(), make_opt()
    want = (r"(?s)^ChainedScheduler expects all schedulers to belong to the same optimizer, but got scheduler StepLR "
            r"at index 1 has SGD \(\n.*which is different from SGD\.$")
    with pytest.raises(ValueError, match=want) as info:
        S.ChainedScheduler([S.StepLR(opt, 1), S.StepLR(other, 1)])
    assert "initial_lr: 0.05" in str(info.value)  # the other optimizer's repr, as PyTorch prints it
    with pytest.raises(ValueError, match="^ChainedScheduler does not support `ReduceLROnPlateau` scheduler as it "
                                         "requires additional kwargs"):
        S.ChainedScheduler([S.StepLR(opt, 1), S.ReduceLROnPlateau(opt)])
    with pytest.raises(TypeError, match="^ChainedScheduler at index 0 should have `optimizer` as its attribute.$"):
        S.ChainedScheduler([object()], optimizer=opt)


def test_state_dict_round_trip_and_resume_errors():
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2)
    run(sched, opt, 3)
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3
    opt2 = make_opt()
    sched2 = S.StepLR(opt2, step_size=5)
    sched2.load_state_dict(sd)
    assert sched2.step_size == 2 and sched2.last_epoch == 3 and sched2.base_lrs == [0.05]
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(make_opt(), step_size=2, last_epoch=3)
    lam = S.LambdaLR(make_opt(), lambda e: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None]


def test_chained_scheduler_multiplies_effects():
    opt = make_opt(lr=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chained = S.ChainedScheduler([S.ExponentialLR(opt, 0.5), S.StepLR(opt, step_size=2, gamma=0.1)])
    run(chained, opt, 2)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.25 * 0.1)


def test_cyclic_lr_triangles_and_momentum():
    opt = make_opt(lr=5.0, momentum=0.9)
    sched = S.CyclicLR(opt, base_lr=0.1, max_lr=1.0, step_size_up=2, step_size_down=2, mode="triangular2")
    lrs, moms = [], []
    for _ in range(9):
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
        opt.step()
        sched.step()
    assert lrs == pytest.approx([0.1, 0.55, 1.0, 0.55, 0.1, 0.325, 0.55, 0.325, 0.1])
    assert moms == pytest.approx([0.9, 0.85, 0.8, 0.85, 0.9, 0.875, 0.85, 0.875, 0.9])
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        S.CyclicLR(opt, 0.1, 1.0, mode="zigzag")


class Halve:
    """A callable-object scale_fn: its __dict__ is what a CyclicLR state dict keeps of it."""

    def __init__(self, base):
        self.base = base

    def __call__(self, x):
        return self.base**x


def test_cyclic_lr_state_dict_keeps_pytorchs_scale_fn_entry():
    opt = make_opt(lr=5.0, momentum=0.9)
    assert S.CyclicLR(opt, 0.1, 1.0).state_dict()["_scale_fn_custom"] is None
    assert S.CyclicLR(opt, 0.1, 1.0, scale_fn=lambda x: 1.0).state_dict()["_scale_fn_custom"] is None
    sd = S.CyclicLR(opt, 0.1, 1.0, scale_fn=Halve(0.5)).state_dict()
    assert sd["_scale_fn_custom"] == {"base": 0.5}
    other = S.CyclicLR(opt, 0.1, 1.0, scale_fn=Halve(0.9))
    other.load_state_dict(sd)
    assert other._scale_fn_custom.base == 0.5 and isinstance(other._scale_fn_custom, Halve)


def test_stepping_the_scheduler_before_the_optimizer_warns():
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    opt2 = make_opt()
    sched2 = S.StepLR(opt2, step_size=2)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched2.step()


def test_optimizer_steps_before_the_first_scheduler_do_not_count_for_the_warning():
    # PyTorch tracks optimizer.step() from the first scheduler's construction on; a second scheduler does not reset it
    opt = make_opt()
    opt.step()
    sched = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    opt.step()
    later = S.StepLR(opt, step_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        later.step()


def test_a_step_replaced_after_the_scheduler_attached_warns_pytorchs_words():
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match=r"^Seems like `optimizer.step\(\)` has been overridden after learning rate "
                                         r"scheduler initialization. Please, make sure"):
        sched.step()


def test_a_step_function_put_on_the_optimizer_is_pytorchs_attribute_error():
    # PyTorch's schedulers wrap `optimizer.step.__func__`: a plain function (or a partial) has none
    opt = make_opt()
    opt.step = lambda closure=None: None
    with pytest.raises(AttributeError, match=r"^'function' object has no attribute '__func__'$"):
        S.StepLR(opt, step_size=2)
    opt = make_opt()
    S.StepLR(opt, step_size=2)
    opt.step = lambda closure=None: None  # after the first scheduler: the next one wraps it again
    with pytest.raises(AttributeError, match="__func__"):
        S.StepLR(opt, step_size=2)
    opt = make_opt()
    opt.step = opt.step  # a bound method on the instance: taken
    assert S.StepLR(opt, step_size=2).last_epoch == 0


def test_warm_restarts_refuses_a_non_number_eta_min():
    with pytest.raises(ValueError, match=r"^Expected float or int eta_min, but got a of type <class 'str'>$"):
        S.CosineAnnealingWarmRestarts(make_opt(), T_0=2, eta_min="a")


def test_scheduler_flags_for_subclasses_ported_from_pytorch():
    # a subclass written against PyTorch's base reads _is_initial / _get_lr_called_within_step in get_lr
    seen = []

    class Halving(optim.lr_scheduler.LRScheduler):
        def get_lr(self):
            seen.append((self._is_initial, self._get_lr_called_within_step))
            return [g["lr"] if self._is_initial else g["lr"] * 0.5 for g in self.optimizer.param_groups]

    p = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([p], lr=0.8)
    s = Halving(opt)
    opt.step()
    s.step()
    assert seen == [(True, True), (False, True)] and s.get_last_lr() == [0.4]
    assert not s._get_lr_called_within_step and not s._is_initial
    assert {"_get_lr_called_within_step", "_is_initial"} <= set(s.state_dict())  # PyTorch 2.13's keys


def test_chained_scheduler_resumes_from_its_state_dict():
    def make():
        opt = optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)
        return opt, S.ChainedScheduler([S.ExponentialLR(opt, 0.9), S.MultiStepLR(opt, [2, 6], 0.5)])

    opt, sched = make()
    for _ in range(4):
        opt.step()
        sched.step()
    sd = sched.state_dict()
    assert all(isinstance(s, dict) and "optimizer" not in s for s in sd["_schedulers"])
    opt2, sched2 = make()
    opt2.load_state_dict(opt.state_dict())
    sched2.load_state_dict(sd)
    assert all(s.optimizer is opt2 for s in sched2._schedulers)
    lrs = []
    for _ in range(3):
        opt2.step()
        sched2.step()
        lrs.append(opt2.param_groups[0]["lr"])
    # 0.1 * 0.9^k, halved at epochs 2 and 6 (PyTorch's values)
    assert lrs == pytest.approx([0.1 * 0.9**5 * 0.5, 0.1 * 0.9**6 * 0.25, 0.1 * 0.9**7 * 0.25])


@pytest.mark.parametrize("make", [
    lambda o: S.StepLR(o, 2), lambda o: S.LambdaLR(o, lambda e: 1.0), lambda o: S.CosineAnnealingLR(o, 4),
    lambda o: S.OneCycleLR(o, 0.1, total_steps=4), lambda o: S.CyclicLR(o, 0.01, 0.1),
    lambda o: SWALR(o, 0.01),
])
def test_get_lr_called_by_the_user_warns_as_pytorch(make):
    opt = make_opt(cls=optim.SGD, momentum=0.9)
    sched = make(opt)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        opt.step()
        sched.step()
        assert rec == []
        sched.get_lr()
    assert [(w.category, str(w.message)) for w in rec] == [
        (UserWarning, "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.")]


def test_resuming_without_initial_lr_says_why_as_pytorch():
    msg = ("param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with last_epoch >= 0.\n"
           "This typically happens when:\n1. You're trying to resume training from a checkpoint but haven't "
           "properly loaded the optimizer state\n2. You're using last_epoch >= 0 for a fresh training run "
           "(not recommended)")
    with pytest.raises(KeyError) as e:
        S.StepLR(make_opt(), 2, last_epoch=3)
    assert e.value.args == (msg,)


def test_multiplicative_lr_state_dict_saves_functions_as_none_and_pickles():
    """PyTorch saves a plain function as None (a lambda cannot be pickled), a callable object as its __dict__."""
    import pickle

    class Decay:
        def __init__(self):
            self.rate = 0.9

        def __call__(self, epoch):
            return self.rate

    p = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([{"params": [p]}, {"params": [nn.Parameter(torch.zeros(1))]}], lr=0.1)
    sched = optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=[lambda e: 0.5, Decay()])
    opt.step()
    sched.step()
    state = pickle.loads(pickle.dumps(sched.state_dict()))
    assert state["lr_lambdas"] == [None, {"rate": 0.9}] and state["last_epoch"] == 1
    other = Decay()
    other.rate = 0.1
    fresh = optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=[lambda e: 1.0, other])
    fresh.load_state_dict(state)
    assert other.rate == 0.9 and fresh.last_epoch == 1


@pytest.mark.parametrize("make", [lambda o: S.StepLR(o, 1, 0.5), lambda o: S.OneCycleLR(o, 0.1, total_steps=5),
                                  lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2),
                                  lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2)],
                         ids=["StepLR", "OneCycleLR", "CyclicLR", "WarmRestarts"])
def test_a_tensor_lr_is_updated_in_place(make):
    # PyTorch fills a Tensor lr (capturable/compiled steps keep reading it); the lists it keeps are clones
    lr = torch.tensor(0.05)
    opt = optim.SGD([nn.Parameter(torch.zeros(1))], lr=lr, momentum=0.9)
    sched = make(opt)
    for _ in range(3):
        opt.step()
        sched.step()
    assert opt.param_groups[0]["lr"] is lr
    last = sched.get_last_lr()[0]
    assert isinstance(last, type(lr)) and last is not lr and float(last) == float(lr)
    assert opt.param_groups[0]["initial_lr"] is not lr


def test_plateau_fills_a_tensor_lr():
    lr = torch.tensor(0.1)
    opt = optim.SGD([nn.Parameter(torch.zeros(1))], lr=lr)
    sched = S.ReduceLROnPlateau(opt, patience=0)
    for m in (1.0, 1.0, 1.0):
        sched.step(m)
    assert opt.param_groups[0]["lr"] is lr
    np.testing.assert_allclose(float(lr), 0.001, rtol=1e-6)


def test_lambda_lr_resumed_into_fewer_groups_refuses_as_pytorch():
    """A state saved with three param groups, loaded where the optimizer has one: PyTorch's strict zip raises
    instead of scheduling only the first group."""
    params = [nn.Parameter(torch.ones(1)) for _ in range(3)]
    saved = S.LambdaLR(optim.SGD([{"params": [p]} for p in params], lr=1.0), lambda e: 0.5)
    opt = optim.SGD(params[:1], lr=1.0)
    resumed = S.LambdaLR(opt, lambda e: 0.5)
    resumed.load_state_dict(saved.state_dict())
    opt.step()
    with pytest.raises(ValueError, match=r"^zip\(\) argument 2 is longer than argument 1$"):
        resumed.step()


_RESUMABLE = {  # name: (make, PyTorch's lr after one step from a resume at last_epoch=2, its get_lr() when fresh)
    "MultiplicativeLR": (lambda o, e: S.MultiplicativeLR(o, lambda k: 0.5, last_epoch=e), 0.05, 0.05),
    "LinearLR": (lambda o, e: S.LinearLR(o, 0.5, total_iters=4, last_epoch=e), 0.114286, 0.025),
    "ExponentialLR": (lambda o, e: S.ExponentialLR(o, 0.5, last_epoch=e), 0.05, 0.05),
    "PolynomialLR": (lambda o, e: S.PolynomialLR(o, total_iters=4, power=1.0, last_epoch=e), 0.0, 0.08),
    "CosineAnnealingLR": (lambda o, e: S.CosineAnnealingLR(o, T_max=4, last_epoch=e), 0.0, 0.117157)}


@pytest.mark.parametrize("name", sorted(_RESUMABLE))
def test_resuming_with_last_epoch_leaves_the_lr_until_the_next_step(name):
    """As PyTorch's `_is_initial` test: the constructor's initial step of a resumed scheduler (last_epoch >= 0)
    does not decay the optimizer's lr one step ahead; a later direct get_lr() is the recursive form's."""
    make, after_step, fresh_get_lr = _RESUMABLE[name]
    opt = optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1)
    opt.param_groups[0]["initial_lr"] = 0.2
    sched = make(opt, 2)
    assert opt.param_groups[0]["lr"] == 0.1
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(after_step, abs=1e-6)
    fresh = make(optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1), -1)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        assert fresh.get_lr() == [pytest.approx(fresh_get_lr, abs=1e-6)]


def test_old_base_class_name_still_subclasses():
    """`_LRScheduler`, the base of schedulers written before PyTorch 2.0, is `LRScheduler` under its old name."""

    class Warmup(S._LRScheduler):
        def __init__(self, optimizer, warmup, last_epoch=-1):
            self.warmup = warmup
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            return [base * min(1.0, (self.last_epoch + 1) / self.warmup) for base in self.base_lrs]

    opt = make_opt(lr=1.0)
    sched = Warmup(opt, 4)
    lrs = []
    for _ in range(5):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == [0.5, 0.75, 1.0, 1.0, 1.0] and isinstance(sched, S.LRScheduler)
