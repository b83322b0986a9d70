"""ResNet-style training infrastructure: channels_last, cudnn/matmul-precision flags, deterministic algorithms, a
seeded DataLoader with worker_init_fn, BatchNorm running stats, SyncBatchNorm conversion, EMA with AveragedModel and
update_bn, conv-bn fusion, pruning, renamed-key checkpoint loading, checkpoint_sequential and the profiler."""

import random
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn
from torch.utils.checkpoint import checkpoint_sequential
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(2)
torch.manual_seed(0)
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = False
torch.set_float32_matmul_precision("high")
print("precision", torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark)
torch.use_deterministic_algorithms(True, warn_only=True)
print("deterministic", torch.are_deterministic_algorithms_enabled(),
      torch.is_deterministic_algorithms_warn_only_enabled())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
device = torch.device("cpu")
print("device", device, torch.backends.cuda.matmul.allow_tf32 in (True, False))


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, 1, 1, bias=False), nn.BatchNorm2d(4), nn.ReLU(inplace=True))
        self.layer1 = BasicBlock(4, 4)
        self.layer2 = BasicBlock(4, 8, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        for m in self.modules():
            if isinstance(m, BasicBlock):
                nn.init.zeros_(m.bn2.weight)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.avgpool(x), 1))


model = ResNet()
print("zero-init", model.layer1.bn2.weight.sum().item(), model.layer2.bn2.weight.shape)
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() > 1:
            p.copy_(T(*p.shape) * 0.3)
    model.fc.bias.copy_(T(3) * 0.1)
model = model.to(device, memory_format=torch.channels_last)
w = model.stem[0].weight
print("channels_last", w.is_contiguous(), w.is_contiguous(memory_format=torch.channels_last), w.stride())

X = T(24, 3, 8, 8)
Y = torch.from_numpy(rng.integers(0, 3, 24))
ds = TensorDataset(X, Y)


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


g = torch.Generator()
g.manual_seed(0)
loader = DataLoader(ds, batch_size=8, shuffle=False, num_workers=0, worker_init_fn=seed_worker, generator=g,
                    pin_memory=torch.cuda.is_available(), drop_last=True)
print("loader", len(loader), loader.batch_size, g.initial_seed())

opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
swa_sched = SWALR(opt, swa_lr=0.01, anneal_epochs=2, anneal_strategy="cos")
crit = nn.CrossEntropyLoss(label_smoothing=0.1)
for epoch in range(2):
    model.train()
    total = 0.0
    for xb, yb in loader:
        xb = xb.to(device, non_blocking=True).contiguous(memory_format=torch.channels_last)
        yb = yb.to(device, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        ema.update_parameters(model)
        total += loss.item() * xb.size(0)
    swa_sched.step()
    print("epoch", epoch, round(total / len(ds), 4), round(opt.param_groups[0]["lr"], 5))
bn = model.stem[1]
print("running", r(bn.running_mean, 4), r(bn.running_var, 4), bn.num_batches_tracked.item())
print("ema n_averaged", ema.n_averaged.item(), r(ema.module.fc.bias), type(ema.module).__name__)
print("ema bn before", r(ema.module.stem[1].running_mean, 4))
update_bn(loader, ema, device=device)
print("ema bn after", r(ema.module.stem[1].running_mean, 4), ema.module.stem[1].momentum)
model.eval()
with torch.no_grad():
    ev = model(X[:4])
    print("eval", r(ev[0]), r(ema(X[:4])[0]))

sync = nn.SyncBatchNorm.convert_sync_batchnorm(ResNet())
print("sync", type(sync.stem[1]).__name__, sum(isinstance(m, nn.SyncBatchNorm) for m in sync.modules()))

conv, bnf = model.stem[0], model.stem[1]
fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bnf)
xx = X[:2]
print("fused", fused.bias is not None, torch.allclose(fused(xx), bnf(conv(xx)), atol=1e-5), r(fused.bias))

import torch.nn.utils.prune as prune  # noqa: E402

lin = nn.Linear(6, 4)
with torch.no_grad():
    lin.weight.copy_(T(4, 6))
prune.l1_unstructured(lin, name="weight", amount=0.5)
print("pruned", [n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()])
print("sparsity", float((lin.weight == 0).sum()) / lin.weight.numel(), prune.is_pruned(lin))
prune.remove(lin, "weight")
print("removed", [n for n, _ in lin.named_parameters()], int((lin.weight == 0).sum()))
conv2 = nn.Conv2d(2, 4, 3)
with torch.no_grad():
    conv2.weight.copy_(T(4, 2, 3, 3))
prune.ln_structured(conv2, name="weight", amount=0.5, n=2, dim=0)
print("structured", conv2.weight_mask.sum(dim=(1, 2, 3)).tolist())
conv3 = nn.Conv2d(2, 3, 3)
with torch.no_grad():
    conv3.weight.copy_(T(3, 2, 3, 3))
params = [(model.fc, "weight"), (conv3, "weight")]
prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.3)
print("global", int((model.fc.weight == 0).sum()), int((conv3.weight == 0).sum()), hasattr(model.fc, "weight_orig"))

sd = OrderedDict((("module." + k), v) for k, v in ResNet().state_dict().items())
clean = OrderedDict((k[len("module."):] if k.startswith("module.") else k, v) for k, v in sd.items())
clean.pop("fc.weight")
clean.pop("fc.bias")
fresh = ResNet()
res = fresh.load_state_dict(clean, strict=False)
print("missing", res.missing_keys, "unexpected", res.unexpected_keys)
try:
    fresh.load_state_dict(sd)
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0])

seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
with torch.no_grad():
    for p in seq.parameters():
        p.copy_(T(*p.shape) * 0.5)
inp = T(3, 4).requires_grad_()
out = checkpoint_sequential(seq, 2, inp, use_reentrant=False)
out.sum().backward()
print("ckpt_seq", r(out[0]), r(inp.grad[0]), r(seq[0].weight.grad[0]))

from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402

with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    with record_function("model_inference"):
        model(X[:2])
names = {e.key for e in prof.key_averages()}
print("profiler", "model_inference" in names, any("conv" in n for n in names))
table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=5)
print("table", isinstance(table, str), "Name" in table)
