"""timm-style model building blocks written inline: make_divisible, DropPath (stochastic depth), SE and ECA
attention, a model registry filled by decorator, create_model with pretrained state_dict loading (strict=False and
the missing/unexpected keys report), adaptive pooling heads and channels_last memory format."""

import math
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(11)


def npt(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


def r(t, n=6):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def make_divisible(v, divisor=8, min_value=None, round_limit=0.9):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < round_limit * v:
        new_v += divisor
    return new_v


print("make_divisible", [make_divisible(c) for c in (3, 10, 16, 30.4, 100, 37 * 0.25)], make_divisible(20, 16))


def drop_path(x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0, scale_by_keep=True):
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training, self.scale_by_keep)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


x = npt(64, 3, 2, 2)
dp = DropPath(0.25)
print(dp)
y = dp(x)
per_sample = (y.flatten(1) != 0).any(1)
kept = y[per_sample]
print("drop_path train", y.shape, y.dtype, torch.allclose(kept, x[per_sample] / 0.75))
dp.eval()
print("drop_path eval", torch.equal(dp(x), x), dp(x) is x)
dpr = [v.item() for v in torch.linspace(0, 0.2, 4)]
print("dpr", [round(v, 4) for v in dpr])


class SqueezeExcite(nn.Module):
    def __init__(self, chs, rd_ratio=0.25, act_layer=nn.ReLU, gate_layer=nn.Sigmoid):
        super().__init__()
        rd = make_divisible(chs * rd_ratio, 8)
        self.fc1 = nn.Conv2d(chs, rd, 1, bias=True)
        self.act = act_layer(inplace=True)
        self.fc2 = nn.Conv2d(rd, chs, 1, bias=True)
        self.gate = gate_layer()

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        return x * self.gate(self.fc2(self.act(self.fc1(s))))


class EcaModule(nn.Module):
    def __init__(self, channels, gamma=2, beta=1):
        super().__init__()
        t = int(abs(math.log(channels, 2) + beta) / gamma)
        k = max(t if t % 2 else t + 1, 3)
        self.conv = nn.Conv1d(1, 1, kernel_size=k, padding=(k - 1) // 2, bias=False)

    def forward(self, x):
        y = F.adaptive_avg_pool2d(x, 1).view(x.shape[0], 1, -1)
        y = self.conv(y).view(x.shape[0], -1, 1, 1).sigmoid()
        return x * y.expand_as(x)


_model_entrypoints = {}


def register_model(fn):
    _model_entrypoints[fn.__name__] = fn
    fn.__module__ = "toy.models"
    return fn


class Block(nn.Module):
    def __init__(self, cin, cout, attn, drop_path_rate):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.attn = attn(cout) if attn is not None else nn.Identity()
        self.drop_path = DropPath(drop_path_rate) if drop_path_rate > 0 else nn.Identity()
        self.shortcut = nn.Identity() if cin == cout else nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        return self.shortcut(x) + self.drop_path(self.attn(F.relu(self.bn(self.conv(x)))))


class TinyNet(nn.Module):
    def __init__(self, widths, attn=None, num_classes=5, drop_path_rate=0.0, global_pool="avg"):
        super().__init__()
        rates = [v.item() for v in torch.linspace(0, drop_path_rate, len(widths))]
        chans = [3] + list(widths)
        self.blocks = nn.Sequential(*[Block(chans[i], chans[i + 1], attn, rates[i]) for i in range(len(widths))])
        self.pool = nn.AdaptiveAvgPool2d(1) if global_pool == "avg" else nn.AdaptiveMaxPool2d((1, 1))
        self.head = nn.Linear(widths[-1], num_classes) if num_classes > 0 else nn.Identity()
        self.num_features = widths[-1]

    def forward_features(self, x):
        return self.blocks(x)

    def forward(self, x):
        return self.head(self.pool(self.forward_features(x)).flatten(1))


@register_model
def tinynet_se(pretrained=False, **kwargs):
    return TinyNet([8, 16], attn=SqueezeExcite, **kwargs)


@register_model
def tinynet_eca(pretrained=False, **kwargs):
    return TinyNet([8, 16], attn=EcaModule, **kwargs)


def list_models(pattern="*"):
    import fnmatch

    return sorted(n for n in _model_entrypoints if fnmatch.fnmatch(n, pattern))


def create_model(name, pretrained=False, pretrained_state=None, **kwargs):
    if name not in _model_entrypoints:
        raise RuntimeError(f"Unknown model ({name})")
    model = _model_entrypoints[name](pretrained=pretrained, **kwargs)
    if pretrained and pretrained_state is not None:
        state = OrderedDict(pretrained_state)
        head = model.head
        if isinstance(head, nn.Linear) and state["head.weight"].shape != head.weight.shape:
            del state["head.weight"], state["head.bias"]
        incompatible = model.load_state_dict(state, strict=False)
        print("missing", incompatible.missing_keys, "unexpected", incompatible.unexpected_keys)
    return model


print("models", list_models(), list_models("*eca"), tinynet_se.__module__)
src = create_model("tinynet_se", num_classes=5)
with torch.no_grad():
    for p in src.parameters():
        p.copy_(npt(*p.shape, scale=0.4))
print(src.blocks[0].attn)
print("eca kernel", [create_model("tinynet_eca").blocks[i].attn.conv.kernel_size for i in range(2)],
      EcaModule(256).conv.kernel_size, EcaModule(256).conv.padding)
sd = src.state_dict()
sd["extra.running"] = torch.zeros(2)
ft = create_model("tinynet_se", pretrained=True, pretrained_state=sd, num_classes=3, drop_path_rate=0.1)
print("loaded", torch.equal(ft.blocks[1].conv.weight, src.blocks[1].conv.weight), ft.head.weight.shape)
print("drop rates", [type(b.drop_path).__name__ for b in ft.blocks], ft.blocks[1].drop_path.drop_prob)
try:
    create_model("resnet9000")
except RuntimeError as e:
    print("RuntimeError", e)

img = npt(2, 3, 6, 6)
src.eval()
out = src(img)
print("out", out.shape, r(out))
cl = src.to(memory_format=torch.channels_last)
img_cl = img.to(memory_format=torch.channels_last)
print("cl", img_cl.is_contiguous(), img_cl.is_contiguous(memory_format=torch.channels_last), img_cl.stride())
print("conv cl", cl.blocks[0].conv.weight.stride(), cl.blocks[0].attn.fc1.weight.stride())
out_cl = cl(img_cl)
feat = cl.forward_features(img_cl)
print("cl out", torch.allclose(out, out_cl, atol=1e-5), feat.is_contiguous(memory_format=torch.channels_last))
se_feat = cl.blocks[0].attn(feat[:, :8])
print("se", se_feat.shape, r(se_feat.mean((2, 3))[0], 4))
pooled = F.adaptive_avg_pool2d(feat, (2, 3))
print("adaptive", pooled.shape, r(pooled[0, 0]), r(F.adaptive_max_pool2d(feat, 1)[0, :3]))
print("adaptive 1d", r(F.adaptive_avg_pool1d(torch.arange(7.0).view(1, 1, 7), 3)))
mx = TinyNet([4], num_classes=0, global_pool="max")
print(mx.pool, mx.head, mx(img).shape, mx.num_features)
n_params = sum(p.numel() for p in src.parameters())
n_train = sum(p.numel() for p in ft.parameters() if p.requires_grad)
print("params", n_params, n_train, sum(b.numel() for b in src.buffers()))
