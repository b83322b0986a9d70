"""Module mechanics: `with torch.device(...)`, to_empty, load_state_dict(assign=True), conv-bn fusing, deepcopy,
pickle, whole-module checkpoints, state_dict metadata, functional_call, samplers and datasets."""

import collections
import copy
import io
import pickle
import numpy as np
import torch
from torch import nn
from torch.func import functional_call
from torch.utils.data import (
    DataLoader,
    TensorDataset,
    DistributedSampler,
    random_split,
    Subset,
    ChainDataset,
    IterableDataset,
    StackDataset,
)

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.3)
    return m


with torch.device("cpu"):
    big = nn.Linear(1000, 1000)
print("device_ctx", big.weight.device, big.weight.shape)
big.to_empty(device="cpu")
print("to_empty", big.weight.device, big.weight.shape)
m = torch.nn.Linear(3, 2, device="cpu")
print("meta_kw", m.weight.device.type)
src = det(nn.Linear(3, 2))
m.load_state_dict(src.state_dict(), assign=True)
print(
    "assign",
    m.weight.device.type,
    torch.equal(m.weight, src.weight),
    m.weight is not src.weight,
    isinstance(m.weight, nn.Parameter),
)
net = det(
    nn.Sequential(
        collections.OrderedDict([("conv", nn.Conv2d(1, 2, 3)), ("bn", nn.BatchNorm2d(2)), ("act", nn.ReLU())])
    )
)
net.eval()
x = T(1, 1, 5, 5)
fused = torch.nn.utils.fuse_conv_bn_eval(net.conv, net.bn)
print("fuse", torch.allclose(fused(x), net.bn(net.conv(x)), atol=1e-5), list(net._modules.keys()))
c = copy.deepcopy(net)
print("deepcopy", c.conv.weight is not net.conv.weight, torch.equal(c.conv.weight, net.conv.weight), c.training)
p = pickle.loads(pickle.dumps(net))
print("pickle", type(p).__name__, torch.equal(p.conv.weight, net.conv.weight))
buf = io.BytesIO()
torch.save(net, buf)
buf.seek(0)
whole = torch.load(buf, weights_only=False)
print("whole_module", type(whole).__name__, torch.equal(whole(x), net(x)))
print("metadata", hasattr(net.state_dict(), "_metadata"), type(net.state_dict()).__name__)
sd = net.state_dict(keep_vars=True)
print("keep_vars", type(sd["conv.weight"]).__name__, sd["conv.weight"].requires_grad)
print("prefix", list(net.state_dict(prefix="model.").keys())[:2])

params = {k: torch.zeros_like(v) for k, v in net.named_parameters()}
print("functional_call", r(functional_call(net, (params, dict(net.named_buffers())), (x,))))
net.register_module("extra", nn.Identity())
net.add_module("extra2", nn.Tanh())
print("modules", [n for n, _ in net.named_modules()], len(list(net.parameters(recurse=False))))
shared = nn.Linear(2, 2)
s2 = nn.Sequential(shared, shared)
print(
    "shared",
    len(list(s2.parameters())),
    len(list(s2.named_modules())),
    len(list(s2.named_modules(remove_duplicate=False))),
)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.h = 0

    def forward(self, x, *, scale=1.0):
        return self.a(x) * scale


mm = M()
mm.a.register_forward_pre_hook(lambda mod, args: None)
print(
    "kw_forward", mm(torch.ones(1, 2), scale=0.0).abs().sum().item(), mm.__class__.__name__, str(mm).replace("\n", "|")
)
try:
    mm.nonexistent
except AttributeError as e:
    print("attr_err", str(e))
try:
    mm.load_state_dict({"a.weight": torch.zeros(3, 3), "a.bias": torch.zeros(2)})
except RuntimeError as e:
    print("size_mismatch", str(e).splitlines()[1].strip())
print(
    "half_roundtrip",
    mm.half().a.weight.dtype,
    mm.float().a.weight.dtype,
    mm.to(torch.float64).a.bias.dtype,
    mm.type(torch.float32).a.bias.dtype,
)
print(
    "cpu_cuda",
    mm.cpu() is mm,
    torch.cuda.is_available(),
    torch.backends.mps.is_available(),
    torch.device("cuda" if torch.cuda.is_available() else "cpu"),
)
print("num_threads", torch.get_num_threads() >= 1, torch.set_num_threads(1), torch.get_num_threads())
ds = TensorDataset(torch.arange(10.0), torch.arange(10))
a, b, c3 = random_split(ds, [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
print("frac_split", len(a), len(b), len(c3))
ds_sampler = DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False)
print("dist_sampler", list(ds_sampler), len(ds_sampler))
ds_sampler.set_epoch(1)
print("subset", Subset(ds, [1, 3])[1][1].item(), len(ds + ds), StackDataset(ds, ds)[0][1][0].item())


class It(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


print("chain", list(ChainDataset([It(2), It(3)])))
Pt = collections.namedtuple("Pt", ["x", "y"])
print("nt_collate", next(iter(DataLoader([Pt(torch.ones(2), 1), Pt(torch.zeros(2), 2)], batch_size=2))))
dl = DataLoader(
    ds,
    batch_size=4,
    num_workers=2,
    prefetch_factor=2,
    timeout=30,
    pin_memory=True,
    multiprocessing_context="spawn" if False else None,
)
print("mp_loader", [b_[1].tolist() for b_ in dl])
print("len_dl", len(DataLoader(ds, batch_size=3)), len(DataLoader(ds, batch_size=3, drop_last=True)))
print("OK")
