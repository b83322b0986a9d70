"""Metric trackers and distillation bookkeeping as modules: extra state (get_extra_state), non-persistent buffers
through save/load and strict loading, a load_state_dict pre-hook that upgrades old keys, an EMA teacher with
_foreach_lerp_, SI importance on flat parameter vectors, distillation losses at several temperatures, and an early
stopper whose state round-trips through torch.save."""

import copy
import io

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

rng = np.random.default_rng(31)


def npt(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


class TopKAccuracy(nn.Module):
    """Counts hits at several k; `ks` travels as extra state, the hit counts as a buffer, a scratch buffer not."""

    def __init__(self, ks=(1, 3)):
        super().__init__()
        self.ks = tuple(ks)
        self.register_buffer("hits", torch.zeros(len(ks), dtype=torch.long))
        self.register_buffer("n", torch.zeros((), dtype=torch.long))
        self.register_buffer("last_logits", None, persistent=False)
        self._register_load_state_dict_pre_hook(self._upgrade)

    def _upgrade(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        old = prefix + "correct"
        if old in state_dict:
            state_dict[prefix + "hits"] = state_dict.pop(old)

    def get_extra_state(self):
        return {"ks": list(self.ks)}

    def set_extra_state(self, state):
        self.ks = tuple(state["ks"])

    @torch.no_grad()
    def forward(self, logits, target):
        top = logits.topk(max(self.ks), dim=1).indices
        hit = top == target[:, None]
        for i, k in enumerate(self.ks):
            self.hits[i] += hit[:, :k].any(1).sum()
        self.n += len(target)
        self.last_logits = logits.detach()
        return self.hits.double() / self.n


acc = TopKAccuracy((1, 2, 3))
logits, y = npt(10, 5), torch.from_numpy(rng.integers(0, 5, 10))
print("acc", np.round(acc(logits, y).numpy(), 4).tolist(), acc(logits[:4], y[:4]).dtype)
sd = acc.state_dict()
print("keys", list(sd), sd["_extra_state"], [n for n, _ in acc.named_buffers()])
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=False)
other = TopKAccuracy((4, 5, 6))
print("load", other.load_state_dict(loaded), other.ks, other.hits.tolist(), other.last_logits)
legacy = {"correct": torch.tensor([3, 5, 7]), "n": torch.tensor(12), "_extra_state": {"ks": [1, 2, 3]}}
print("upgrade", other.load_state_dict(legacy), other.hits.tolist())
res = other.load_state_dict({"hits": torch.tensor([1, 1, 1])}, strict=False)
print("lax", res.missing_keys, res.unexpected_keys)
try:
    other.load_state_dict({"hits": torch.zeros(2, dtype=torch.long), "n": torch.tensor(1), "_extra_state": {"ks": [1]}})
except RuntimeError as e:
    print("size", str(e).splitlines()[1].strip())
wrap = nn.ModuleDict({"fit": TopKAccuracy(), "val": TopKAccuracy((5,))})
print("nested", list(wrap.state_dict()), wrap.val.ks)
wrap.to(torch.float64)
print("to_double", wrap.fit.hits.dtype, copy.deepcopy(wrap).val.get_extra_state())

# EMA teacher with foreach ops
student = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
with torch.no_grad():
    for p in student.parameters():
        p.copy_(npt(*p.shape, scale=0.5))
teacher = copy.deepcopy(student).requires_grad_(False)
x = npt(8, 4)
opt = torch.optim.Adam(student.parameters(), lr=0.05)
for step in range(4):
    s_out = student(x)
    with torch.no_grad():
        t_out = teacher(x + 0.1)
    losses = []
    for T in (1.0, 4.0):
        kd = F.kl_div(
            F.log_softmax(s_out / T, -1), F.log_softmax(t_out / T, -1), log_target=True, reduction="batchmean"
        )
        losses.append(kd * T * T)
    mse = F.mse_loss(s_out, t_out)
    loss = losses[1] + 0.1 * mse
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    with torch.no_grad():
        torch._foreach_lerp_(list(teacher.parameters()), list(student.parameters()), 0.3)
    print(f"step {step} kd1 {losses[0].item():.4f} kd4 {losses[1].item():.4f} mse {mse.item():.4f}")
gap = parameters_to_vector(student.parameters()) - parameters_to_vector(teacher.parameters())
print("ema_gap", round(gap.norm().item(), 4), gap.shape, gap.dtype)

# SI on flat vectors
theta0 = parameters_to_vector(student.parameters()).detach().clone()
w = torch.zeros_like(theta0)
prev = theta0.clone()
for step in range(3):
    loss = F.cross_entropy(student(x), torch.arange(8) % 3)
    opt.zero_grad()
    loss.backward()
    g = parameters_to_vector(p.grad for p in student.parameters())
    opt.step()
    cur = parameters_to_vector(student.parameters()).detach()
    w -= g * (cur - prev)
    prev = cur
omega = w / ((cur - theta0) ** 2 + 1e-3)
print("si", round(w.sum().item(), 4), round(omega.max().item(), 4), int((omega > 0).sum()))
vector_to_parameters(theta0, student.parameters())
print("restored", torch.equal(parameters_to_vector(student.parameters()), theta0))


class EarlyStopping:
    def __init__(self, patience=2, mode="max", min_delta=0.0):
        self.patience, self.mode, self.min_delta = patience, mode, min_delta
        self.best, self.bad, self.best_epoch = None, 0, -1

    def step(self, metric, epoch):
        better = self.best is None or (
            metric > self.best + self.min_delta if self.mode == "max" else metric < self.best - self.min_delta
        )
        if better:
            self.best, self.bad, self.best_epoch = metric, 0, epoch
        else:
            self.bad += 1
        return self.bad > self.patience

    def state_dict(self):
        return dict(vars(self))


stopper = EarlyStopping(patience=1, min_delta=0.005)
for epoch, m in enumerate([0.61, 0.64, 0.642, 0.65, 0.648, 0.649]):
    if stopper.step(torch.tensor(m).item(), epoch):
        print("stop", epoch, stopper.best_epoch, round(stopper.best, 4))
        break
blob = io.BytesIO()
torch.save({"stopper": stopper.state_dict(), "acc": acc.state_dict()}, blob)
blob.seek(0)
ck = torch.load(blob, weights_only=False)
print("ck", sorted(ck), ck["stopper"], ck["acc"]["hits"].tolist())
for name, fn in [
    ("kl_log_target_mismatch", lambda: F.kl_div(torch.zeros(2, 3), torch.zeros(3, 2), log_target=True)),
    ("foreach_len", lambda: torch._foreach_lerp_([torch.zeros(2)], [], 0.5)),
    ("vec_to_params", lambda: vector_to_parameters(theta0[:-1], student.parameters())),
    ("p2v_not_iter", lambda: parameters_to_vector(torch.zeros(3))),
    ("moduledict_train", lambda: nn.ModuleDict({"train": nn.Identity()})),
    ("buffer_exists", lambda: acc.register_buffer("ks", torch.zeros(1))),
]:
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
