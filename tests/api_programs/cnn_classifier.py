"""CNN classifier: DataLoader, train/eval, no_grad, StepLR, clipping, checkpoints, param groups."""

import io
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def show(k, x):
    if isinstance(x, torch.Tensor):
        print(k, tuple(x.shape), str(x.dtype), np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist())
    else:
        print(k, x)


torch.manual_seed(0)
X = T(64, 1, 8, 8)
y = torch.from_numpy(rng.integers(0, 3, 64))
ds = TensorDataset(X, y)
tr, va = random_split(ds, [48, 16], generator=torch.Generator().manual_seed(0))
show("split", (len(tr), len(va), type(tr).__name__))
loader = DataLoader(tr, batch_size=16, shuffle=True, drop_last=False)
vl = DataLoader(va, batch_size=8)
show("nbatches", (len(loader), len(vl)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(4, 8, kernel_size=3, stride=1, padding="same", bias=False),
            nn.GELU(),
            nn.AdaptiveAvgPool2d((1, 1)),
        )
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.fc(self.drop(x))


model = Net()
with torch.no_grad():
    for n, p in model.named_parameters():
        p.copy_(T(*p.shape) * 0.3)
show("nparams", sum(p.numel() for p in model.parameters()))
show("params", [n for n, _ in model.named_parameters()])
show("buffers", [n for n, _ in model.named_buffers()])
model.eval()
with torch.no_grad():
    out = model(X[:4])
show("eval_out", out)
show("bn_running", model.features[1].running_mean)
opt = torch.optim.SGD(
    [{"params": model.features.parameters()}, {"params": model.fc.parameters(), "lr": 0.05}],
    lr=0.1,
    momentum=0.9,
    weight_decay=1e-4,
    nesterov=True,
)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
crit = nn.CrossEntropyLoss(label_smoothing=0.1)
losses = []
for epoch in range(4):
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        tn = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)
        opt.step()
        losses.append(loss.item())
    sched.step()
    show("lr", [round(g["lr"], 6) for g in opt.param_groups] + sched.get_last_lr())
show("clip_total_norm_type", (type(tn).__name__, tn.dim()))
show("bn_tracked", model.features[1].num_batches_tracked)
model.eval()
correct = 0
with torch.no_grad():
    for xb, yb in vl:
        correct += (model(xb).argmax(dim=1) == yb).sum().item()
show("correct_type", type(correct).__name__)

buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": 4}, buf)
buf.seek(0)
ck = torch.load(buf)
show("ckeys", sorted(ck.keys()))
show("sd_keys", list(ck["model"].keys()))
show("opt_sd", (sorted(ck["opt"].keys()), sorted(ck["opt"]["param_groups"][1].keys())))
show("opt_state0", sorted(ck["opt"]["state"][0].keys()))
m2 = Net()
m2.load_state_dict(ck["model"])
m2.eval()
o2 = torch.optim.SGD(m2.parameters(), lr=1.0)
try:
    o2.load_state_dict(ck["opt"])
except ValueError as e:
    show("opt_load_err", type(e).__name__)
o3 = torch.optim.SGD(
    [{"params": m2.features.parameters()}, {"params": m2.fc.parameters(), "lr": 0.05}], lr=0.1, momentum=0.9
)
o3.load_state_dict(ck["opt"])
show("o3_lr", [g["lr"] for g in o3.param_groups])
show("o3_nesterov", o3.param_groups[0]["nesterov"])
with torch.no_grad():
    torch.testing.assert_close(m2(X[:4]), model(X[:4]))
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "ck.pt")
    torch.save(model.state_dict(), path)
    sd = torch.load(path, map_location="cpu", weights_only=True)
    show("file_keys", len(sd))
    r = m2.load_state_dict(sd, strict=False)
    show("incompat", (r.missing_keys, r.unexpected_keys))
    sd.pop("fc.bias")
    sd["extra"] = torch.zeros(1)
    r = m2.load_state_dict(sd, strict=False)
    show("incompat2", (r.missing_keys, r.unexpected_keys))
    try:
        m2.load_state_dict(sd)
    except RuntimeError as e:
        show("strict_err", str(e).splitlines()[0])
# add_param_group & freezing
for p in model.features.parameters():
    p.requires_grad_(False)
show("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
extra = nn.Parameter(torch.zeros(3))
opt.add_param_group({"params": [extra], "lr": 0.01})
show("ngroups", (len(opt.param_groups), opt.param_groups[2]["momentum"], opt.param_groups[2]["weight_decay"]))
show("losses_fall", losses[-1] < losses[0] + 1.0)
print("OK")
