"""A timm-style ConvNeXt (V1 and V2) written inline: LayerNorm2d as an nn.LayerNorm subclass over permuted inputs,
GlobalResponseNorm, depthwise 7x7 blocks with LayerScale gammas and DropPath, stages with downsampling, a model
registry with register_model/create_model and pretrained_cfg dicts, feature_info and forward_intermediates,
reset_classifier, channels_last inputs, and a few SGD steps with a per-stage layer-decay learning rate."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)

_model_entrypoints = {}


def register_model(fn):
    _model_entrypoints[fn.__name__] = fn
    return fn


def create_model(name, pretrained=False, **kwargs):
    if name not in _model_entrypoints:
        raise RuntimeError(f"Unknown model ({name})")
    return _model_entrypoints[name](pretrained=pretrained, **kwargs)


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over channels of an NCHW tensor."""

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class GlobalResponseNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):  # NHWC
        x_g = x.norm(p=2, dim=(1, 2), keepdim=True)
        x_n = x_g / (x_g.mean(dim=-1, keepdim=True) + self.eps)
        return x + torch.addcmul(self.bias, self.weight, x * x_n)


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:
            return x
        keep = 1 - self.drop_prob
        mask = x.new_empty((x.shape[0],) + (1,) * (x.ndim - 1)).bernoulli_(keep)
        return x * mask.div_(keep)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim, drop_path=0.0, ls_init_value=1e-6, use_grn=False, mlp_ratio=4):
        super().__init__()
        self.conv_dw = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp_ratio * dim), nn.GELU(),
                                 GlobalResponseNorm(mlp_ratio * dim) if use_grn else nn.Identity(),
                                 nn.Linear(mlp_ratio * dim, dim))
        self.gamma = nn.Parameter(ls_init_value * torch.ones(dim)) if ls_init_value is not None else None
        self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()

    def forward(self, x):
        shortcut = x
        x = self.conv_dw(x).permute(0, 2, 3, 1)
        x = self.mlp(self.norm(x))
        if self.gamma is not None:
            x = x.mul(self.gamma.reshape(1, 1, 1, -1))
        return self.drop_path(x.permute(0, 3, 1, 2)) + shortcut


class ConvNeXtStage(nn.Module):
    def __init__(self, in_chs, out_chs, stride=2, depth=2, dp_rates=None, ls_init_value=1.0, use_grn=False):
        super().__init__()
        if in_chs != out_chs or stride > 1:
            self.downsample = nn.Sequential(LayerNorm2d(in_chs, eps=1e-6),
                                            nn.Conv2d(in_chs, out_chs, kernel_size=stride, stride=stride))
        else:
            self.downsample = nn.Identity()
        dp_rates = dp_rates or [0.0] * depth
        self.blocks = nn.Sequential(*[ConvNeXtBlock(out_chs, dp_rates[j], ls_init_value, use_grn)
                                      for j in range(depth)])

    def forward(self, x):
        return self.blocks(self.downsample(x))


class ConvNeXt(nn.Module):
    def __init__(self, in_chans=3, num_classes=10, depths=(1, 1, 2), dims=(8, 16, 24), drop_path_rate=0.0,
                 ls_init_value=1e-6, use_grn=False, head_init_scale=1.0):
        super().__init__()
        self.num_classes = num_classes
        self.stem = nn.Sequential(nn.Conv2d(in_chans, dims[0], kernel_size=4, stride=4), LayerNorm2d(dims[0], eps=1e-6))
        dp_rates = [x.tolist() for x in torch.linspace(0, drop_path_rate, sum(depths)).split(list(depths))]
        stages, prev, self.feature_info, stride = [], dims[0], [], 4
        for i, (d, c) in enumerate(zip(depths, dims)):
            s = 1 if i == 0 else 2
            stride *= s
            stages.append(ConvNeXtStage(prev, c, s, d, dp_rates[i], ls_init_value, use_grn))
            self.feature_info.append(dict(num_chs=c, reduction=stride, module=f"stages.{i}"))
            prev = c
        self.stages = nn.Sequential(*stages)
        self.num_features = prev
        self.head = nn.Sequential()
        self.head.add_module("global_pool", nn.AdaptiveAvgPool2d(1))
        self.head.add_module("norm", LayerNorm2d(prev))
        self.head.add_module("flatten", nn.Flatten(1))
        self.head.add_module("fc", nn.Linear(prev, num_classes))
        self.apply(self._init_weights)
        with torch.no_grad():
            self.head.fc.weight.mul_(head_init_scale)
            self.head.fc.bias.mul_(head_init_scale)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, nn.Conv2d):
            nn.init.trunc_normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Linear):
            nn.init.trunc_normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)

    def reset_classifier(self, num_classes):
        self.num_classes = num_classes
        self.head.fc = nn.Linear(self.num_features, num_classes) if num_classes > 0 else nn.Identity()

    def forward_intermediates(self, x, indices=(0, 1, 2)):
        feats = []
        x = self.stem(x)
        for i, stage in enumerate(self.stages):
            x = stage(x)
            if i in indices:
                feats.append(x)
        return x, feats

    def forward(self, x):
        return self.head(self.stages(self.stem(x)))


@register_model
def convnext_atto(pretrained=False, **kwargs):
    model = ConvNeXt(**kwargs)
    model.pretrained_cfg = dict(input_size=(3, 32, 32), mean=(0.485, 0.456, 0.406), classifier="head.fc")
    return model


@register_model
def convnextv2_atto(pretrained=False, **kwargs):
    model = ConvNeXt(use_grn=True, ls_init_value=None, **kwargs)
    model.pretrained_cfg = dict(input_size=(3, 32, 32), mean=(0.485, 0.456, 0.406), classifier="head.fc")
    return model


print("registry", sorted(_model_entrypoints))
try:
    create_model("convnext_huge")
except RuntimeError as e:
    print("RuntimeError:", e)

model = create_model("convnext_atto", drop_path_rate=0.1, head_init_scale=0.5)
print(model.stages[2].blocks[1])
print(model.head)
print("feature_info", model.feature_info)
print("params", sum(p.numel() for p in model.parameters()), "cfg", model.pretrained_cfg["classifier"])
print("dp rates", [[round(b.drop_path.drop_prob, 4) if isinstance(b.drop_path, DropPath) else 0.0
                    for b in s.blocks] for s in model.stages])
print("head fc |w| max", round(model.head.fc.weight.abs().max().item(), 4))

x = torch.randn(2, 3, 32, 32)
model.eval()
with torch.no_grad():
    out = model(x)
    last, feats = model.forward_intermediates(x)
    out_cl = model.to(memory_format=torch.channels_last)(x.to(memory_format=torch.channels_last))
print("logits", out)
print("intermediates", [tuple(f.shape) for f in feats], tuple(last.shape))
print("channels_last same", torch.allclose(out, out_cl, atol=1e-5),
      model.stem[0].weight.is_contiguous(memory_format=torch.channels_last))
model = model.to(memory_format=torch.contiguous_format)

ln2d = LayerNorm2d(8)
t = torch.randn(2, 8, 3, 3)
ref = F.layer_norm(t.permute(0, 2, 3, 1), (8,)).permute(0, 3, 1, 2)
print(ln2d, "matches", torch.allclose(ln2d(t), ref, atol=1e-6), ln2d(t).is_contiguous())

v2 = create_model("convnextv2_atto", num_classes=4)
grn = v2.stages[0].blocks[0].mlp[2]
print(v2.stages[0].blocks[0].mlp, "gamma", v2.stages[0].blocks[0].gamma)
with torch.no_grad():
    grn.weight.fill_(0.5)
    grn.bias.fill_(0.1)
    h = torch.randn(2, 3, 3, 32)
    g = grn(h)
print("grn", tuple(g.shape), g[0, 0, 0, :4], round((g - h).mean().item(), 4))

model.reset_classifier(4)
print("reset head", model.head.fc)
decay = 0.7
groups = []
for i, stage in enumerate(model.stages):
    groups.append({"params": list(stage.parameters()), "lr": 0.05 * decay ** (len(model.stages) - 1 - i),
                   "name": f"stage{i}"})
groups.append({"params": list(model.stem.parameters()), "lr": 0.05 * decay ** 3, "name": "stem"})
groups.append({"params": list(model.head.parameters()), "lr": 0.05, "name": "head"})
print("n params covered", sum(len(g["params"]) for g in groups), len(list(model.parameters())))
opt = torch.optim.SGD(groups, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
print("group lrs", [(g["name"], round(g["lr"], 4)) for g in opt.param_groups])
y = torch.tensor([1, 3])
model.train()
torch.manual_seed(7)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f} gamma0 {model.stages[0].blocks[0].gamma.grad.norm().item():.4e}")
print("momentum buffer", opt.state[model.head.fc.weight]["momentum_buffer"].shape)
