"""torch.compile in a training script: `model = torch.compile(model)` on a BatchNorm/Dropout MLP, a whole
`@torch.compile` training step (forward, backward, optimizer step, zero_grad) with an LR scheduler changing lr
between compiled steps, BatchNorm running stats updated in place, outputs kept across calls, eval under
no_grad / inference_mode, and the compiled wrapper's _orig_mod, parameters and state_dict."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(7)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class MLP(nn.Module):
    def __init__(self, d_in=6, hidden=12, classes=3, p=0.25):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.bn(self.fc1(x)))))


def make_model(seed):
    m = MLP()
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.standard_normal(tuple(p.shape)).astype(np.float32) * 0.4))
    return m


X, Y = T(32, 6), torch.from_numpy(rng.integers(0, 3, 32))
batches = [(X[i:i + 8], Y[i:i + 8]) for i in range(0, 32, 8)]

# 1) model = torch.compile(model): the wrapper, its names and its shared parameters
base = make_model(1)
model = torch.compile(base)
print("wrapper", type(model).__name__, model._orig_mod is base, isinstance(model, nn.Module))
print("params_shared", all(a is b for a, b in zip(model.parameters(), base.parameters())))
print("keys", list(model.state_dict().keys())[:4], len(model.state_dict()))
print("named", [n for n, _ in model.named_parameters()][:2])
print("attr", model.fc1.out_features, model.bn.momentum, model.training)
model.log_every = 10  # a new attribute set through the wrapper lands on the original module
print("setattr", getattr(base, "log_every", None), model.log_every, "log_every" in model.__dict__)

# train it next to an eager twin (dropout off via p=0 so the numbers do not depend on the RNG)
eager = make_model(1)
for m in (base, eager):
    m.drop.p = 0.0
opt_c = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
opt_e = torch.optim.SGD(eager.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    for xb, yb in batches:
        for m, o in ((model, opt_c), (eager, opt_e)):
            o.zero_grad()
            loss = F.cross_entropy(m(xb), yb)
            loss.backward()
            o.step()
    print("epoch", epoch, round(loss.item(), 4))
print("same_as_eager", torch.allclose(base.fc2.weight, eager.fc2.weight, atol=1e-5), r(base.fc2.weight))
print("running_mean", r(base.bn.running_mean), r(eager.bn.running_mean))
print("num_batches_tracked", base.bn.num_batches_tracked.item(), eager.bn.num_batches_tracked.item())

# eval: BatchNorm uses running stats; no_grad and inference_mode around the compiled call
model.eval()
print("eval_flags", model.training, base.training, base.bn.training)
with torch.no_grad():
    out_ng = model(X[:4])
with torch.inference_mode():
    out_im = model(X[:4])
print("eval_out", r(out_ng), out_ng.requires_grad, torch.equal(out_ng, out_im), out_im.is_inference())
eager.eval()
print("eval_match", torch.allclose(out_ng, eager(X[:4]), atol=1e-5))

# 2) a whole training step under @torch.compile with a scheduler between steps
net = make_model(2)
net.drop.p = 0.0
twin = make_model(2)
twin.drop.p = 0.0
opt = torch.optim.Adam(net.parameters(), lr=0.05)
opt_t = torch.optim.Adam(twin.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
sched_t = torch.optim.lr_scheduler.StepLR(opt_t, step_size=2, gamma=0.5)


@torch.compile
def train_step(xb, yb):
    opt.zero_grad(set_to_none=True)
    logits = net(xb)
    loss = F.cross_entropy(logits, yb, label_smoothing=0.05)
    loss.backward()
    opt.step()
    return loss, logits


def eager_step(xb, yb):
    opt_t.zero_grad(set_to_none=True)
    logits = twin(xb)
    loss = F.cross_entropy(logits, yb, label_smoothing=0.05)
    loss.backward()
    opt_t.step()
    return loss, logits


kept = []
for step in range(6):
    xb, yb = batches[step % 4]
    loss, logits = train_step(xb, yb)
    loss_t, _ = eager_step(xb, yb)
    kept.append(loss)
    print("step", step, round(loss.item(), 4), round(loss_t.item(), 4), "lr", round(opt.param_groups[0]["lr"], 4),
          logits.shape, loss.requires_grad)
    sched.step()
    sched_t.step()
print("kept", [round(k.item(), 4) for k in kept])
print("distinct_objects", len({id(k) for k in kept}))
print("adam_state", int(opt.state[net.fc1.weight]["step"]), r(opt.state[net.fc1.weight]["exp_avg"], 4))
print("weights_match", torch.allclose(net.fc1.weight, twin.fc1.weight, atol=1e-4), r(net.fc1.weight, 4))
print("bn_stats", r(net.bn.running_var, 4), net.bn.num_batches_tracked.item())
print("grad_after", net.fc1.weight.grad is not None, r(net.fc1.weight.grad, 3))

# 3) dropout in train vs eval through a compiled module (only RNG-free facts are printed)
dm = make_model(3)
cdm = torch.compile(dm)
cdm.train()
x = torch.ones(8, 6)
with torch.no_grad():
    a = cdm(x)
    cdm.eval()
    b, c = cdm(x), cdm(x)
print("dropout_eval_deterministic", torch.equal(b, c), a.shape, dm.training)
dm.drop.p = 1.0
cdm.train()
with torch.no_grad():
    z = cdm.drop(torch.ones(3, 4))
print("p1_dropout", z.sum().item(), dm.drop)
print(cdm)
