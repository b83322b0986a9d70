"""timm utilities re-implemented: trunc_normal_ by the inverse-CDF method (erfinv_, clamp_ under no_grad), variance
scaling and lecun init, DropPath with scale_by_keep, LayerScale (inplace mul_), an _init_weights applied by
Module.apply, conv-BN fusion for inference, param groups without weight decay for norms/biases/tokens, layer-wise LR
decay by name, ModelEmaV3 with _foreach_lerp_ and warmup decay, a cosine scheduler with warmup, and checkpoint_seq."""

import math
from copy import deepcopy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint_sequential

rng = np.random.default_rng(13)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def _trunc_normal_(tensor, mean, std, a, b, uniform):
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    lo, up = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
    tensor.copy_(uniform * (up - lo) + lo)
    tensor.mul_(2).sub_(1)
    tensor.erfinv_()
    tensor.mul_(std * math.sqrt(2.0))
    tensor.add_(mean)
    tensor.clamp_(min=a, max=b)
    return tensor


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, uniform=None):
    with torch.no_grad():
        u = torch.from_numpy(rng.random(tuple(tensor.shape))).to(tensor.dtype) if uniform is None else uniform
        return _trunc_normal_(tensor, mean, std, a, b, u)


def variance_scaling_(tensor, scale=1.0, mode="fan_in", distribution="truncated_normal"):
    fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(tensor)
    denom = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    variance = scale / denom
    if distribution == "truncated_normal":
        return trunc_normal_(tensor, std=math.sqrt(variance) / 0.87962566103423978)
    bound = math.sqrt(3 * variance)
    with torch.no_grad():
        return tensor.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(tensor.shape))))


w = torch.empty(2000)
trunc_normal_(w, std=0.02, a=-0.04, b=0.04)
print("trunc_normal", w.dtype, r(w.min()), r(w.max()), r(w.std()), w.requires_grad)
w16 = trunc_normal_(torch.empty(8, dtype=torch.float64), mean=1.0, std=0.5, a=0.0, b=2.0)
print("trunc double", w16.dtype, r(w16, 4))
conv_w = torch.empty(16, 8, 3, 3)
print("fans", nn.init._calculate_fan_in_and_fan_out(conv_w), nn.init.calculate_gain("leaky_relu", 0.2),
      nn.init.calculate_gain("selu"), nn.init.calculate_gain("tanh"))
variance_scaling_(conv_w, mode="fan_avg")
print("lecun", r(conv_w.std() * math.sqrt(8 * 9 + 16 * 9) / math.sqrt(2)), r(conv_w.abs().max() * math.sqrt(216 / 2)))


def drop_path(x, drop_prob=0.0, training=False, scale_by_keep=True, keep_mask=None):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).copy_(keep_mask.view(shape))
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0, scale_by_keep=True):
        super().__init__()
        self.drop_prob, self.scale_by_keep = drop_prob, scale_by_keep
        self.mask = None

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training, self.scale_by_keep, self.mask)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class Block(nn.Module):
    def __init__(self, dim, dpr):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(approximate="tanh"), nn.Linear(dim * 2, dim))
        self.ls = LayerScale(dim, 0.1)
        self.drop_path = DropPath(dpr) if dpr > 0 else nn.Identity()

    def forward(self, x):
        return x + self.drop_path(self.ls(self.mlp(self.norm(x))))


class Net(nn.Module):
    def __init__(self, dim=8, depth=3, drop_path_rate=0.2):
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, 5, dim))
        self.stem = nn.Conv2d(3, dim, 2, 2, bias=False)
        self.bn = nn.BatchNorm2d(dim)
        dpr = [x.item() for x in torch.linspace(0, drop_path_rate, depth)]
        self.blocks = nn.Sequential(*[Block(dim, d) for d in dpr])
        self.head = nn.Linear(dim, 3)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Conv2d):
            variance_scaling_(m.weight, distribution="uniform")

    def no_weight_decay(self):
        return {"cls_token", "pos_embed"}

    def forward(self, x, use_ckpt=False):
        x = self.bn(self.stem(x)).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embed
        x = checkpoint_sequential(self.blocks, 2, x, use_reentrant=False) if use_ckpt else self.blocks(x)
        return self.head(x.mean(1))


torch.manual_seed(0)
net = Net()
print(net.blocks[2].drop_path, net.blocks[0].drop_path, [type(b.drop_path).__name__ for b in net.blocks])
print("init", r(net.head.weight.std()), r(net.head.bias), r(net.stem.weight.abs().max()))
x = torch.from_numpy(rng.standard_normal((4, 3, 4, 4))).float()
net.eval()
y_eval = net(x)
net.train()
for b in net.blocks:
    if isinstance(b.drop_path, DropPath):
        b.drop_path.mask = torch.tensor([1.0, 0.0, 1.0, 1.0])
y_tr = net(x)
y_ck = net(x, use_ckpt=True)
print("eval", r(y_eval[0]), "train", r(y_tr[1]), "ckpt equal", torch.allclose(y_tr, y_ck, atol=1e-6))
y_ck.sum().backward()
print("ckpt grads", r(net.blocks[1].ls.gamma.grad[:4] * 1000), r(net.cls_token.grad[0, 0, :3]))

ls = LayerScale(4, 0.5, inplace=True)
t = torch.ones(2, 4)
out = ls(t)
print("inplace layerscale", out.data_ptr() == t.data_ptr(), t[0].tolist())
try:
    ls(torch.ones(2, 4, requires_grad=True))
except RuntimeError as e:
    print("RuntimeError |", str(e)[:100])


def fuse_conv_bn(conv, bn):
    fused = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding, bias=True)
    std = (bn.running_var + bn.eps).sqrt()
    with torch.no_grad():
        fused.weight.copy_(conv.weight * (bn.weight / std).reshape(-1, 1, 1, 1))
        b = conv.bias if conv.bias is not None else torch.zeros_like(bn.running_mean)
        fused.bias.copy_((b - bn.running_mean) * bn.weight / std + bn.bias)
    return fused


net.eval()
with torch.no_grad():
    net.bn.running_mean.copy_(torch.from_numpy(rng.normal(size=8)))
    net.bn.running_var.copy_(torch.from_numpy(rng.random(8) + 0.5))
    net.bn.weight.copy_(torch.from_numpy(rng.normal(size=8)))
fused = fuse_conv_bn(net.stem, net.bn)
ref = net.bn(net.stem(x))
print("fused", torch.allclose(fused(x), ref, atol=1e-5), r(fused.bias, 4))
tv_fused = torch.nn.utils.fusion.fuse_conv_bn_eval(net.stem, net.bn)
print("torch fuse", torch.allclose(tv_fused(x), ref, atol=1e-5), tv_fused.bias is not None)


def param_groups_weight_decay(model, weight_decay=1e-5, no_weight_decay_list=()):
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.ndim <= 1 or name.endswith(".bias") or name in no_weight_decay_list:
            no_decay.append(param)
        else:
            decay.append(param)
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": weight_decay}]


def layer_id(name, num_layers):
    if name in ("cls_token", "pos_embed") or name.startswith(("stem", "bn")):
        return 0
    if name.startswith("blocks."):
        return int(name.split(".")[1]) + 1
    return num_layers - 1


groups = param_groups_weight_decay(net, 0.05, net.no_weight_decay())
print("groups", [len(g["params"]) for g in groups], [sum(p.numel() for p in g["params"]) for g in groups])
scales = {}
for name, p in net.named_parameters():
    lid = layer_id(name, 5)
    scales.setdefault(lid, {"params": [], "lr_scale": 0.65 ** (5 - 1 - lid)})["params"].append(p)
opt = torch.optim.AdamW([{"params": v["params"], "lr_scale": v["lr_scale"]} for _, v in sorted(scales.items())],
                        lr=1e-3, weight_decay=0.05)
print("layer decay", [round(g["lr_scale"], 4) for g in opt.param_groups], [len(g["params"]) for g in opt.param_groups])


def cosine_lr(step, base, warmup, total, warmup_init=1e-6, lr_min=1e-5):
    if step < warmup:
        return warmup_init + (base - warmup_init) * step / warmup
    t = (step - warmup) / (total - warmup)
    return lr_min + 0.5 * (base - lr_min) * (1 + math.cos(math.pi * t))


class ModelEmaV3(nn.Module):
    def __init__(self, model, decay=0.99, min_decay=0.0, use_warmup=True, warmup_power=2 / 3):
        super().__init__()
        self.module = deepcopy(model).eval()
        self.decay, self.min_decay, self.use_warmup, self.warmup_power = decay, min_decay, use_warmup, warmup_power
        for p in self.module.parameters():
            p.requires_grad_(False)

    def get_decay(self, step):
        if not self.use_warmup:
            return self.decay
        d = 1 - (1 + step) ** -self.warmup_power
        return max(min(d, self.decay), self.min_decay)

    @torch.no_grad()
    def update(self, model, step):
        decay = self.get_decay(step)
        ema_p = [p for p in self.module.parameters()]
        model_p = [p.detach() for p in model.parameters()]
        torch._foreach_lerp_(ema_p, model_p, weight=1.0 - decay)
        for eb, mb in zip(self.module.buffers(), model.buffers()):
            eb.lerp_(mb.to(eb.dtype), 1.0 - decay) if eb.is_floating_point() else eb.copy_(mb)
        return decay


ema = ModelEmaV3(net)
net.train()
for g in net.blocks:
    if isinstance(g.drop_path, DropPath):
        g.drop_path.mask = torch.ones(4)
target = torch.tensor([0, 1, 2, 1])
decays = []
for step in range(6):
    for g in opt.param_groups:
        g["lr"] = cosine_lr(step, 1e-2, 2, 6) * g["lr_scale"]
    loss = F.cross_entropy(net(x), target, label_smoothing=0.1)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0, foreach=True)
    opt.step()
    decays.append(round(ema.update(net, step), 4))
print("decays", decays, "last lr", [round(g["lr"], 6) for g in opt.param_groups][:3], r(gn))
print("loss", round(loss.item(), 4), "ema diff", r((ema.module.head.weight - net.head.weight).abs().max() > 0),
      ema.module.bn.num_batches_tracked.item(), r(ema.module.bn.running_mean[:3]))
print("ema eval", r(ema.module(x)[0]), ema.module.training, any(p.requires_grad for p in ema.module.parameters()))
for fn in [lambda: nn.init._calculate_fan_in_and_fan_out(torch.empty(3)), lambda: nn.init.calculate_gain("swish"),
           lambda: checkpoint_sequential(net.blocks, 0, torch.zeros(4, 5, 8), use_reentrant=False),
           lambda: checkpoint_sequential(net.blocks, 1, torch.zeros(4, 5, 8), use_reentrant=False, debug=True),
           lambda: torch._foreach_lerp_([torch.ones(2)], [torch.ones(3)], weight=0.5),
           lambda: torch.optim.AdamW([{"params": net.head.weight}, {"params": net.head.weight}])]:
    try:
        fn()
        print("ok")
    except Exception as e:
        print(type(e).__name__, "|", str(e).replace("\n", " / ")[:140])
