"""Evaluation and checkpoint code of the 0.4-1.x era: F.upsample/upsample_bilinear, whole-module torch.save into a
buffer, nn.DataParallel on a CPU-only machine, default_collate, set_grad_enabled(False) as a call, train(False),
resize_, lstsq in place of gels, cuda-guarded seeding, and the warnings they raise."""

import io
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torch.utils.data.dataloader import default_collate

rng = np.random.default_rng(5)
use_cuda = torch.cuda.is_available()
torch.manual_seed(1234)
if use_cuda:
    torch.cuda.manual_seed_all(1234)
torch.cuda.manual_seed_all(1234)  # a no-op without CUDA, as old scripts relied on
print("cuda", use_cuda)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def show(w):
    for item in w:
        print("  warn", item.category.__name__, str(item.message).splitlines()[0])


def arr(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


# Deprecated upsampling.
img = arr(1, 2, 3, 3)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    up_n = F.upsample(img, scale_factor=2, mode="nearest")
    up_b = F.upsample(img, size=(5, 5), mode="bilinear", align_corners=False)
    up_bb = F.upsample_bilinear(img, scale_factor=2)
    up_nn = F.upsample_nearest(img, size=4)
print("upsample", tuple(up_n.shape), r(up_n), tuple(up_b.shape), r(up_b))
print("upsample_bilinear", tuple(up_bb.shape), r(up_bb), "nearest", tuple(up_nn.shape), r(up_nn))
show(w)
up_mod = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
print("Upsample module", up_mod, r(up_mod(img)))
ub = nn.UpsamplingBilinear2d(scale_factor=2)
print("UpsamplingBilinear2d", ub, torch.allclose(ub(img), up_bb))


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        x = F.adaptive_avg_pool2d(x, 1).view(x.size(0), -1)
        return self.fc(x)


model = Small()
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
if use_cuda:
    model = model.cuda()

# DataParallel without GPUs just wraps the module.
dp = nn.DataParallel(model)
print("dp", type(dp).__name__, dp.module is model, dp.device_ids, hasattr(dp, "output_device"))
keys = list(dp.state_dict().keys())
print("dp keys", keys[:3], len(keys))
stripped = {k[len("module."):] if k.startswith("module.") else k: v for k, v in dp.state_dict().items()}
fresh = Small()
print("load stripped", fresh.load_state_dict(stripped))
try:
    fresh.load_state_dict(dp.state_dict())
except RuntimeError as e:
    print("prefixed load", type(e).__name__, str(e).splitlines()[0])

batch = [(arr(2, 4, 4), i) for i in range(3)]
xb, yb = default_collate(batch)
print("collate", tuple(xb.shape), xb.dtype, yb, yb.dtype)
d = default_collate([{"a": np.float64(1.5), "b": [1, 2]}, {"a": np.float64(2.5), "b": [3, 4]}])
print("collate dict", d["a"], d["b"])

# The old evaluation idioms.
model.train(False)
print("training", model.training, model.bn.training)
torch.set_grad_enabled(False)
out = dp(Variable(xb))
print("no grad", out.requires_grad, torch.is_grad_enabled(), r(out))
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print("ctx", torch.is_grad_enabled())
print("back", torch.is_grad_enabled())
model.train()
out2 = model(xb)
print("train mode", out2.requires_grad, out2.grad_fn.name(), model.bn.num_batches_tracked.item())
_, pred = out.data.max(1)
print("pred", pred.tolist(), pred.cpu().numpy().dtype)

# Whole-module serialization.
buf = io.BytesIO()
torch.save(model, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print("weights_only load", type(e).__name__, "Weights only load failed" in str(e))
buf.seek(0)
loaded = torch.load(buf, weights_only=False)
loaded.eval()
model.eval()
print("loaded", type(loaded).__name__, loaded is model, torch.equal(loaded(xb), model(xb)))
print("loaded bn", r(loaded.bn.running_mean), loaded.bn.num_batches_tracked.item())
sd_buf = io.BytesIO()
torch.save({"epoch": 3, "state_dict": dp.state_dict(), "best_prec1": 71.5}, sd_buf)
sd_buf.seek(0)
ckpt = torch.load(sd_buf, map_location=lambda storage, loc: storage)
print("ckpt", ckpt["epoch"], ckpt["best_prec1"], sorted(ckpt["state_dict"])[:2])

# resize_, cat of Variables, lstsq (gels is gone).
t = torch.arange(6.0)
t.resize_(2, 3)
print("resize_", t.tolist(), t.shape)
t.resize_(4)
print("resize_ smaller", t.tolist())
a = Variable(torch.ones(2, 2), requires_grad=True)
b = Variable(torch.zeros(1, 2))
c = torch.cat([a, b], 0)
print("cat", tuple(c.shape), c.requires_grad, c.grad_fn.name())
A = torch.from_numpy(rng.standard_normal((6, 3)))
B = torch.from_numpy(rng.standard_normal((6, 2)))
sol = torch.linalg.lstsq(A, B)
print("lstsq", r(sol.solution), sol.solution.shape, sol.rank, sol.residuals.shape)
print("lstsq vs pinv", torch.allclose(sol.solution, torch.linalg.pinv(A) @ B))
print("gels exists", hasattr(torch, "gels"), hasattr(torch, "lstsq"))
for old in (lambda: torch.lstsq(B, A), lambda: torch.solve(B, A), lambda: A.symeig(eigenvectors=True)):
    try:
        old()
    except RuntimeError as e:
        print("removed", type(e).__name__, str(e).splitlines()[0][:100])
