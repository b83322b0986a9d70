"""ConvNeXt as its reference implementation writes it: a channels-first LayerNorm by hand next to F.layer_norm,
depthwise 7x7 convolutions, the channels-last MLP via permute, layer scale (gamma), DropPath, downsampling stems,
the AdamW recipe with no weight decay on norms and biases, and a few training steps."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-6, data_format="channels_last"):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps
        self.data_format = data_format
        if self.data_format not in ["channels_last", "channels_first"]:
            raise NotImplementedError
        self.normalized_shape = (normalized_shape,)

    def forward(self, x):
        if self.data_format == "channels_last":
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


def drop_path(x, drop_prob=0.0, training=False):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = keep_prob + torch.rand(shape, dtype=x.dtype, device=x.device)
    random_tensor.floor_()
    return x.div(keep_prob) * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob=None):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training)


class Block(nn.Module):
    def __init__(self, dim, drop_path=0.0, layer_scale_init_value=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(layer_scale_init_value * torch.ones(dim), requires_grad=True) \
            if layer_scale_init_value > 0 else None
        self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()

    def forward(self, x):
        input = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)  # (N, C, H, W) -> (N, H, W, C)
        x = self.norm(x)
        x = self.pwconv1(x)
        x = self.act(x)
        x = self.pwconv2(x)
        if self.gamma is not None:
            x = self.gamma * x
        x = x.permute(0, 3, 1, 2)
        return input + self.drop_path(x)


class ConvNeXt(nn.Module):
    def __init__(self, in_chans=3, num_classes=5, depths=(1, 2), dims=(8, 16), drop_path_rate=0.2,
                 layer_scale_init_value=1e-6, head_init_scale=1.0):
        super().__init__()
        self.downsample_layers = nn.ModuleList()
        stem = nn.Sequential(nn.Conv2d(in_chans, dims[0], kernel_size=4, stride=4),
                             LayerNorm(dims[0], eps=1e-6, data_format="channels_first"))
        self.downsample_layers.append(stem)
        for i in range(len(dims) - 1):
            self.downsample_layers.append(nn.Sequential(
                LayerNorm(dims[i], eps=1e-6, data_format="channels_first"),
                nn.Conv2d(dims[i], dims[i + 1], kernel_size=2, stride=2)))
        self.stages = nn.ModuleList()
        dp_rates = [x.item() for x in torch.linspace(0, drop_path_rate, sum(depths))]
        cur = 0
        for i in range(len(dims)):
            self.stages.append(nn.Sequential(*[Block(dims[i], dp_rates[cur + j], layer_scale_init_value)
                                               for j in range(depths[i])]))
            cur += depths[i]
        self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
        self.head = nn.Linear(dims[-1], num_classes)
        self.apply(self._init_weights)
        self.head.weight.data.mul_(head_init_scale)
        self.head.bias.data.mul_(head_init_scale)

    def _init_weights(self, m):
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.trunc_normal_(m.weight, std=0.02)
            nn.init.constant_(m.bias, 0)

    def forward_features(self, x):
        for i in range(len(self.stages)):
            x = self.downsample_layers[i](x)
            x = self.stages[i](x)
        return self.norm(x.mean([-2, -1]))

    def forward(self, x):
        return self.head(self.forward_features(x))


torch.manual_seed(0)
model = ConvNeXt()
print("dp rates", [round(m.drop_path.drop_prob, 4) for m in model.modules() if isinstance(m, Block)
                   if isinstance(m.drop_path, DropPath)])
print(model.stages[0][0])
print("trunc_normal in range", all(bool(m.weight.abs().max() <= 2.0) for m in model.modules()
                                   if isinstance(m, (nn.Conv2d, nn.Linear))))
print("params", sum(p.numel() for p in model.parameters()),
      "trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
with torch.no_grad():
    for name, p in model.named_parameters():
        if name.endswith("gamma"):
            p.fill_(0.5)
        elif p.ndim == 1 and "norm" in name or name.endswith(".1.weight") and p.ndim == 1:
            p.copy_(torch.from_numpy(1 + 0.1 * rng.standard_normal(p.shape).astype(np.float32)))
        else:
            p.copy_(torch.from_numpy((0.2 * rng.standard_normal(p.shape)).astype(np.float32)))

x = torch.from_numpy(rng.standard_normal((2, 3, 16, 16)).astype(np.float32))
ln_first = model.downsample_layers[0][1]
h = model.downsample_layers[0][0](x)
ref = F.layer_norm(h.permute(0, 2, 3, 1), (8,), ln_first.weight, ln_first.bias, 1e-6).permute(0, 3, 1, 2)
print("stem", tuple(h.shape), "channels_first LN == F.layer_norm:", torch.allclose(ln_first(h), ref, atol=1e-5))
print("permute contiguous", h.permute(0, 2, 3, 1).is_contiguous(), h.permute(0, 2, 3, 1).stride())

model.eval()
with torch.no_grad():
    feats = model.forward_features(x)
    out = model(x)
print("eval feats", tuple(feats.shape), r(feats), "logits", r(out, 6))
model.train()
out_train = model(x)
print("train logits shape", tuple(out_train.shape), out_train.requires_grad)

model.eval()
target = torch.tensor([1, 3])
loss = F.cross_entropy(model(x), target, label_smoothing=0.1)
loss.backward()
print("loss", round(loss.item(), 4))
for name in ["downsample_layers.0.0.weight", "stages.0.0.dwconv.weight", "stages.1.1.gamma", "head.bias"]:
    g = dict(model.named_parameters())[name].grad
    print(" grad", name, tuple(g.shape), round(g.norm().item(), 4))

decay, no_decay = [], []
for name, p in model.named_parameters():
    (no_decay if p.ndim <= 1 or name.endswith(".bias") else decay).append(p)
print("groups", len(decay), len(no_decay))
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                        lr=4e-3, betas=(0.9, 0.999))
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
model.zero_grad(set_to_none=True)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), target, label_smoothing=0.1)
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
    print("step", step, round(loss.item(), 4), "gnorm", round(total.item(), 4),
          "lr", round(sched.get_last_lr()[0], 6))
print("gamma after", r(model.stages[1][1].gamma))
print(opt.state_dict()["param_groups"][0]["weight_decay"], sorted(opt.state_dict()["state"][0].keys()))
