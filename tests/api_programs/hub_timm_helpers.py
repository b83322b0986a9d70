"""timm's model helpers written inline: to_2tuple via itertools.repeat, resample_abs_pos_embed (bicubic
F.interpolate of the grid, prefix tokens kept), adapt_input_conv for 1- and 4-channel inputs, checkpoint_filter_fn
remapping keys, SelectAdaptivePool2d (avg, max, avgmax, catavgmax), Mixup/CutMix with rand_bbox and one-hot
smoothed targets, SoftTargetCrossEntropy, top-k accuracy, AverageMeter, and a Lookahead optimizer wrapper."""

import collections.abc
import math
from collections import OrderedDict, defaultdict
from itertools import repeat

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse


to_2tuple = _ntuple(2)


def resample_abs_pos_embed(posemb, new_size, old_size=None, num_prefix_tokens=1, interpolation="bicubic",
                           antialias=False):
    num_pos_tokens = posemb.shape[1]
    num_new_tokens = new_size[0] * new_size[1] + num_prefix_tokens
    if num_new_tokens == num_pos_tokens and new_size[0] == new_size[1]:
        return posemb
    if old_size is None:
        hw = int(math.sqrt(num_pos_tokens - num_prefix_tokens))
        old_size = hw, hw
    if num_prefix_tokens:
        posemb_prefix, posemb = posemb[:, :num_prefix_tokens], posemb[:, num_prefix_tokens:]
    else:
        posemb_prefix = None
    embed_dim = posemb.shape[-1]
    orig_dtype = posemb.dtype
    posemb = posemb.float()
    posemb = posemb.reshape(1, old_size[0], old_size[1], -1).permute(0, 3, 1, 2)
    posemb = F.interpolate(posemb, size=new_size, mode=interpolation, antialias=antialias)
    posemb = posemb.permute(0, 2, 3, 1).reshape(1, -1, embed_dim).to(orig_dtype)
    if posemb_prefix is not None:
        posemb = torch.cat([posemb_prefix, posemb], dim=1)
    return posemb


def adapt_input_conv(in_chans, conv_weight):
    conv_type = conv_weight.dtype
    conv_weight = conv_weight.float()
    O, II, J, K = conv_weight.shape
    if in_chans == 1:
        if II > 3:
            assert conv_weight.shape[1] % 3 == 0
            conv_weight = conv_weight.reshape(O, II // 3, 3, J, K).sum(dim=2, keepdim=False)
        else:
            conv_weight = conv_weight.sum(dim=1, keepdim=True)
    elif in_chans != 3:
        if II != 3:
            raise NotImplementedError("Weight format not supported by conversion.")
        repeat_n = int(math.ceil(in_chans / 3))
        conv_weight = conv_weight.repeat(1, repeat_n, 1, 1)[:, :in_chans, :, :]
        conv_weight *= (3 / float(in_chans))
    return conv_weight.to(conv_type)


def checkpoint_filter_fn(state_dict, model):
    out = {}
    for k, v in state_dict.items():
        if k.startswith("module."):
            k = k[7:]
        k = k.replace("downsample_layers.", "stages.").replace("fc.", "head.fc.")
        if k.endswith("gamma") and v.ndim == 1:
            k = k[:-5] + "ls.gamma"
        if "num_batches_tracked" in k:
            continue
        target = model.state_dict().get(k)
        if target is not None and target.shape != v.shape:
            v = v.reshape(target.shape)
        out[k] = v
    return out


class SelectAdaptivePool2d(nn.Module):
    def __init__(self, output_size=1, pool_type="avg", flatten=False):
        super().__init__()
        self.pool_type = pool_type
        self.flatten = nn.Flatten(1) if flatten else nn.Identity()
        self.output_size = output_size

    def forward(self, x):
        if self.pool_type == "avg":
            x = F.adaptive_avg_pool2d(x, self.output_size)
        elif self.pool_type == "max":
            x = F.adaptive_max_pool2d(x, self.output_size)
        elif self.pool_type == "avgmax":
            x = 0.5 * (F.adaptive_avg_pool2d(x, self.output_size) + F.adaptive_max_pool2d(x, self.output_size))
        elif self.pool_type == "catavgmax":
            x = torch.cat((F.adaptive_avg_pool2d(x, self.output_size), F.adaptive_max_pool2d(x, self.output_size)),
                          1)
        else:
            raise AssertionError(f"Invalid pool type: {self.pool_type}")
        return self.flatten(x)

    def feat_mult(self):
        return 2 if self.pool_type == "catavgmax" else 1

    def __repr__(self):
        return f"{self.__class__.__name__}(pool_type={self.pool_type}, flatten={isinstance(self.flatten, nn.Flatten)})"


def one_hot(x, num_classes, on_value=1.0, off_value=0.0):
    x = x.long().view(-1, 1)
    return torch.full((x.size()[0], num_classes), off_value).scatter_(1, x, on_value)


def mixup_target(target, num_classes, lam=1.0, smoothing=0.0):
    off_value = smoothing / num_classes
    on_value = 1.0 - smoothing + off_value
    y1 = one_hot(target, num_classes, on_value=on_value, off_value=off_value)
    y2 = one_hot(target.flip(0), num_classes, on_value=on_value, off_value=off_value)
    return y1 * lam + y2 * (1.0 - lam)


def rand_bbox(img_shape, lam, margin=0.0):
    ratio = math.sqrt(1 - lam)
    img_h, img_w = img_shape[-2:]
    cut_h, cut_w = int(img_h * ratio), int(img_w * ratio)
    margin_y, margin_x = int(margin * cut_h), int(margin * cut_w)
    cy = int(torch.randint(0 + margin_y, img_h - margin_y, (1,)))
    cx = int(torch.randint(0 + margin_x, img_w - margin_x, (1,)))
    yl, yh = max(cy - cut_h // 2, 0), min(cy + cut_h // 2, img_h)
    xl, xh = max(cx - cut_w // 2, 0), min(cx + cut_w // 2, img_w)
    return yl, yh, xl, xh


class SoftTargetCrossEntropy(nn.Module):
    def forward(self, x, target):
        loss = torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1)
        return loss.mean()


def accuracy(output, target, topk=(1,)):
    maxk = min(max(topk), output.size()[1])
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.reshape(1, -1).expand_as(pred))
    return [correct[:min(k, maxk)].reshape(-1).float().sum(0) * 100.0 / batch_size for k in topk]


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class Lookahead(torch.optim.Optimizer):
    def __init__(self, base_optimizer, alpha=0.5, k=2):
        defaults = dict(lookahead_alpha=alpha, lookahead_k=k, lookahead_step=0)
        self._base_optimizer = base_optimizer
        self.param_groups = base_optimizer.param_groups
        self.defaults = base_optimizer.defaults
        self.defaults.update(defaults)
        self.state = defaultdict(dict)
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        for group in self.param_groups:
            for name, default in defaults.items():
                group.setdefault(name, default)

    @torch.no_grad()
    def update_slow(self, group):
        for fast_p in group["params"]:
            if fast_p.grad is None:
                continue
            param_state = self._base_optimizer.state[fast_p]
            if "lookahead_slow_buff" not in param_state:
                param_state["lookahead_slow_buff"] = torch.empty_like(fast_p)
                param_state["lookahead_slow_buff"].copy_(fast_p)
            slow = param_state["lookahead_slow_buff"]
            slow.add_(fast_p - slow, alpha=group["lookahead_alpha"])
            fast_p.copy_(slow)

    def step(self, closure=None):
        loss = self._base_optimizer.step(closure)
        for group in self.param_groups:
            group["lookahead_step"] += 1
            if group["lookahead_step"] % group["lookahead_k"] == 0:
                self.update_slow(group)
        return loss

    def state_dict(self):
        return self._base_optimizer.state_dict()


print("to_2tuple", to_2tuple(7), to_2tuple((3, 5)), to_2tuple([1, 2]), to_2tuple("ab"))
pos = torch.randn(1, 1 + 4 * 4, 8)
new = resample_abs_pos_embed(pos, (6, 6))
print("resampled", new.shape, "prefix kept", torch.equal(new[:, :1], pos[:, :1]), new[0, 1:4, 0])
print("same size returns input", resample_abs_pos_embed(pos, (4, 4)) is pos)
rect = resample_abs_pos_embed(pos, (2, 5), num_prefix_tokens=1, interpolation="bilinear", antialias=True)
print("bilinear antialias", rect.shape, rect[0, 1:4, 0])
half = resample_abs_pos_embed(pos.half(), (3, 3))
print("half in, half out", half.dtype, half[0, 1:3, 0])

w = torch.randn(4, 3, 3, 3)
print("to gray", adapt_input_conv(1, w).shape, torch.allclose(adapt_input_conv(1, w), w.sum(1, keepdim=True)))
w4 = adapt_input_conv(4, w)
print("to 4ch", w4.shape, w4[0, :, 0, 0], torch.allclose(w4[:, 3], w[:, 0] * 0.75))
try:
    adapt_input_conv(5, torch.randn(4, 2, 3, 3))
except NotImplementedError as e:
    print("NotImplementedError:", e)

model = nn.Sequential()
model.add_module("stages", nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)))
model.add_module("head", nn.Module())
model.head.add_module("fc", nn.Linear(4, 2))
old = {"module.downsample_layers.0.weight": torch.randn(4, 3, 3, 3), "module.downsample_layers.0.bias": torch.zeros(4),
       "module.downsample_layers.1.num_batches_tracked": torch.tensor(5), "module.fc.weight": torch.randn(8),
       "module.fc.bias": torch.zeros(2)}
filtered = checkpoint_filter_fn(old, model)
print("filtered", sorted(filtered), filtered["head.fc.weight"].shape)
res = model.load_state_dict(filtered, strict=False)
print("missing", res.missing_keys, "unexpected", res.unexpected_keys)

feat = torch.randn(2, 4, 5, 5)
for pt in ("avg", "max", "avgmax", "catavgmax"):
    pool = SelectAdaptivePool2d(pool_type=pt, flatten=True)
    out = pool(feat)
    print(pool, tuple(out.shape), pool.feat_mult(), out[0, :3])
try:
    SelectAdaptivePool2d(pool_type="sum")(feat)
except AssertionError as e:
    print("AssertionError:", e)
print("adaptive max 2x2 with indices", F.adaptive_max_pool2d(feat[:1, :1], 2, return_indices=True))

x = torch.randn(4, 3, 8, 8)
y = torch.tensor([0, 1, 2, 1])
lam = 0.7
yl, yh, xl, xh = rand_bbox(x.shape, lam)
x_cut = x.clone()
x_cut[:, :, yl:yh, xl:xh] = x.flip(0)[:, :, yl:yh, xl:xh]
lam_adj = 1 - (yh - yl) * (xh - xl) / float(x.shape[-2] * x.shape[-1])
print("bbox", (yl, yh, xl, xh), "lam", round(lam_adj, 4), "changed", (x_cut != x).any(1).sum().item())
target = mixup_target(y, 3, lam_adj, smoothing=0.1)
print("mixed target", target, target.sum(1))
lam_beta = torch.distributions.Beta(torch.tensor(0.8), torch.tensor(0.8)).sample()
print("beta lam", round(lam_beta.item(), 4))
x_mix = x.mul(lam).add_(x.flip(0).mul_(1.0 - lam))
print("mixup mean", round(x_mix.mean().item(), 4))

net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64, 16), nn.GELU(), nn.Linear(16, 3))
crit = SoftTargetCrossEntropy()
base = torch.optim.AdamW(net.parameters(), lr=1e-2)
opt = Lookahead(base, alpha=0.5, k=2)
meter = AverageMeter()
for step in range(4):
    logits = net(x_cut)
    loss = crit(logits, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    meter.update(loss.item(), x.size(0))
    top1, top2 = accuracy(logits, y, topk=(1, 2))
    print(f"step {step} loss {loss.item():.4f} avg {meter.avg:.4f} top1 {top1.item():.1f} top2 {top2.item():.1f}")
print("lookahead groups", sorted(k for k in opt.param_groups[0] if k.startswith("lookahead")),
      opt.param_groups[0]["lookahead_step"], "slow buffers",
      sum("lookahead_slow_buff" in s for s in base.state.values()))
print("soft == hard ce for one-hot", torch.allclose(crit(logits, F.one_hot(y, 3).float()), F.cross_entropy(logits, y)))
