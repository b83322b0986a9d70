"""Training-loop mistakes: optimizers given a tensor, a generator twice, non-leaf or duplicate parameters, bad
hyper-parameters; schedulers stepped before the optimizer (the warning, caught and printed); DataLoader collate
errors with ragged samples and unsupported types; datasets indexed out of range; and the fixes."""

import warnings

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split


def oops(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} {out.dtype}")
    else:
        print(f"{name}: ok {out}")


def caught(name, fn):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        oops(name, fn)
    for w in ws:
        print("  warns", w.category.__name__, str(w.message))


def model():
    m = nn.Linear(3, 2)
    with torch.no_grad():
        m.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.0, 0.5, -0.4]]))
        m.bias.zero_()
    return m


m = model()
# optimizer construction
oops("opt_tensor", lambda: torch.optim.SGD(m.weight, lr=0.1))
oops("opt_module", lambda: torch.optim.SGD(m, lr=0.1))
oops("opt_empty", lambda: torch.optim.Adam([], lr=0.1))
gen = m.parameters()
list(gen)
oops("opt_exhausted_generator", lambda: torch.optim.SGD(gen, lr=0.1))
oops("opt_non_leaf", lambda: torch.optim.SGD([m.weight * 2], lr=0.1))
oops("opt_no_grad_ok", lambda: len(torch.optim.SGD([torch.zeros(2)], lr=0.1).param_groups))
caught("opt_duplicate", lambda: torch.optim.SGD([m.weight, m.weight], lr=0.1))
oops("opt_groups_overlap", lambda: torch.optim.SGD([{"params": m.parameters()}, {"params": [m.bias]}], lr=0.1))
oops("opt_lr_negative", lambda: torch.optim.SGD(m.parameters(), lr=-0.1))
oops("opt_momentum_negative", lambda: torch.optim.SGD(m.parameters(), lr=0.1, momentum=-1))
oops("opt_nesterov", lambda: torch.optim.SGD(m.parameters(), lr=0.1, nesterov=True))
oops("opt_betas", lambda: torch.optim.Adam(m.parameters(), betas=(1.0, 0.999)))
oops("opt_eps", lambda: torch.optim.Adam(m.parameters(), eps=-1e-8))
oops("opt_weight_decay", lambda: torch.optim.AdamW(m.parameters(), weight_decay=-0.01))
oops("opt_lr_string", lambda: torch.optim.SGD(m.parameters(), lr="0.1").param_groups[0]["lr"])
oops("opt_unknown_kw", lambda: torch.optim.Adam(m.parameters(), lr=0.1, momentum=0.9))
oops("opt_dict_params", lambda: torch.optim.SGD({"w": m.weight}, lr=0.1))
oops("opt_named_ok", lambda: [g["param_names"] for g in torch.optim.SGD(m.named_parameters(), lr=0.1).param_groups])
oops("add_group_dup", lambda: torch.optim.SGD([m.weight], lr=0.1).add_param_group({"params": [m.weight]}))
oops("add_group_no_params", lambda: torch.optim.SGD([m.weight], lr=0.1).add_param_group({"lr": 0.2}))

# the step without backward, and load_state_dict mismatches
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
opt.step()
print("no_grad_step", m.weight[0].tolist(), len(opt.state))
sd = torch.optim.Adam(m.parameters(), lr=0.1).state_dict()
oops("opt_load_other_groups", lambda: torch.optim.SGD([m.weight], lr=0.1).load_state_dict(sd))
sd2 = torch.optim.SGD([{"params": [m.weight]}, {"params": [m.bias]}], lr=0.1).state_dict()
oops("opt_load_group_count", lambda: torch.optim.SGD(m.parameters(), lr=0.1).load_state_dict(sd2))
oops("opt_load_missing_key", lambda: torch.optim.SGD(m.parameters(), lr=0.1).load_state_dict({"state": {}}))

# schedulers
opt = torch.optim.SGD(model().parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
caught("sched_before_opt", lambda: sched.step())
print("lr", opt.param_groups[0]["lr"], sched.get_last_lr())
oops("sched_not_optimizer", lambda: torch.optim.lr_scheduler.StepLR(model(), step_size=1))
oops("sched_lambda_count", lambda: torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0, lambda e: 0.5]))
oops("sched_onecycle_steps", lambda: torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1))
oops("sched_cosine_ok", lambda: torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10).get_last_lr())
oops("sched_plateau_mode", lambda: torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="maximum"))
oops("sched_plateau_no_metric", lambda: torch.optim.lr_scheduler.ReduceLROnPlateau(opt).step())
oops("sched_multistep_ok", lambda: torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[3, 1]).milestones)
o2 = torch.optim.SGD(model().parameters(), lr=0.1)
s2 = torch.optim.lr_scheduler.ExponentialLR(o2, gamma=0.9)
o2.step()
caught("sched_after_opt_ok", lambda: s2.step() or s2.get_last_lr())
caught("sched_epoch_arg", lambda: s2.step(5) or [round(v, 6) for v in s2.get_last_lr()])


# data
class Ragged(Dataset):
    def __init__(self):
        self.items = [torch.ones(3), torch.ones(4), torch.ones(3)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i], i


class Weird(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {"x": torch.ones(2), "meta": object()}


oops("collate_ragged", lambda: next(iter(DataLoader(Ragged(), batch_size=2))))
oops("collate_ragged_ok", lambda: [t.shape for t, _ in DataLoader(Ragged(), batch_size=None)])
oops("collate_object", lambda: next(iter(DataLoader(Weird(), batch_size=2))))
oops("collate_numpy_ragged", lambda: next(iter(DataLoader([np.ones(2), np.ones(3)], batch_size=2))))
oops("collate_dict_keys", lambda: next(iter(DataLoader([{"a": 1}, {"b": 2}], batch_size=2))))
oops("collate_none", lambda: next(iter(DataLoader([None, None], batch_size=2))))
oops("collate_strings_ok", lambda: next(iter(DataLoader(["a", "b"], batch_size=2))))
oops("collate_tuple_len", lambda: next(iter(DataLoader([(1, 2), (3,)], batch_size=2))))
ds = TensorDataset(torch.arange(6.0).view(3, 2), torch.tensor([0, 1, 0]))
oops("tensordataset_sizes", lambda: TensorDataset(torch.ones(3, 2), torch.ones(4)))
oops("dataset_oob", lambda: ds[3])
oops("dataset_slice_ok", lambda: ds[1:][0])
oops("loader_batch_zero", lambda: DataLoader(ds, batch_size=0))
oops("loader_shuffle_sampler", lambda: DataLoader(ds, shuffle=True, sampler=[0, 1, 2]))
oops("loader_batch_sampler", lambda: DataLoader(ds, batch_size=2, batch_sampler=[[0, 1]]))
oops("loader_workers", lambda: DataLoader(ds, num_workers=-1))
oops("loader_len", lambda: len(DataLoader(ds, batch_size=2)))
oops("loader_drop_last", lambda: len(DataLoader(ds, batch_size=2, drop_last=True)))
oops("random_split_sum", lambda: random_split(ds, [2, 2]))
g0 = torch.Generator().manual_seed(0)
oops("random_split_frac", lambda: [len(s) for s in random_split(ds, [0.5, 0.5], generator=g0)])
oops("subscript_loader", lambda: DataLoader(ds)[0])
