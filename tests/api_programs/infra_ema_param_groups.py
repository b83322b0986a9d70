"""timm-style optimizer plumbing: ModelEmaV2/V3 (deepcopy, lerp_/mul_/add_ under no_grad, foreach lerp, warmup
decay), parameter groups that exempt biases and norms from weight decay, layer-wise LR decay for a ViT-like stack,
and checks a researcher prints while wiring them up (group sizes, lr scales, optimizer reprs, state dict keys)."""

from copy import deepcopy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def npt(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, d)
        self.gamma = nn.Parameter(torch.full((d,), 0.1))

    def forward(self, x):
        return x + self.gamma * F.gelu(self.fc(self.norm(x)))


class TinyViT(nn.Module):
    def __init__(self, d=6, depth=3, n_cls=3):
        super().__init__()
        self.patch_embed = nn.Linear(4, d)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = nn.Parameter(torch.zeros(1, 3, d))
        self.blocks = nn.ModuleList([Layer(d) for _ in range(depth)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, n_cls)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def no_weight_decay(self):
        return {"cls_token", "pos_embed"}

    def forward(self, x):
        x = self.patch_embed(x)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embed
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x)[:, 0])


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
    if name in ("cls_token", "pos_embed") or name.startswith("patch_embed"):
        return 0
    if name.startswith("blocks."):
        return int(name.split(".")[1]) + 1
    return num_layers + 1


def param_groups_layer_decay(model, weight_decay=0.05, layer_decay=0.75, no_weight_decay_list=()):
    num_layers = len(model.blocks)
    scales = [layer_decay ** (num_layers + 1 - i) for i in range(num_layers + 2)]
    groups = {}
    for name, p in model.named_parameters():
        if p.ndim == 1 or name in no_weight_decay_list:
            g_decay, this_decay = "no_decay", 0.0
        else:
            g_decay, this_decay = "decay", weight_decay
        lid = layer_id(name, num_layers)
        key = f"layer_{lid}_{g_decay}"
        if key not in groups:
            groups[key] = {"lr_scale": scales[lid], "weight_decay": this_decay, "param_names": [], "params": []}
        groups[key]["param_names"].append(name)
        groups[key]["params"].append(p)
    return groups


model = TinyViT()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(npt(*p.shape, scale=0.5))
groups = param_groups_weight_decay(model, 0.05, model.no_weight_decay())
print("wd groups", [len(g["params"]) for g in groups], [g["weight_decay"] for g in groups])
ld = param_groups_layer_decay(model, layer_decay=0.5, no_weight_decay_list=model.no_weight_decay())
for k, g in sorted(ld.items()):
    print(" ", k, round(g["lr_scale"], 4), g["weight_decay"], g["param_names"])
opt = torch.optim.AdamW([{k: v for k, v in g.items() if k != "param_names"} for g in ld.values()], lr=1e-2,
                        betas=(0.9, 0.999))
for g in opt.param_groups:
    g["lr"] = 1e-2 * g["lr_scale"]
print("lrs", sorted({round(g["lr"], 6) for g in opt.param_groups}), len(opt.param_groups))
print("group keys", sorted(opt.param_groups[0].keys()))


class ModelEmaV2(nn.Module):
    def __init__(self, model, decay=0.9999, device=None):
        super().__init__()
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay
        self.device = device
        if self.device is not None:
            self.module.to(device=device)

    def _update(self, model, update_fn):
        with torch.no_grad():
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                if self.device is not None:
                    model_v = model_v.to(device=self.device)
                ema_v.copy_(update_fn(ema_v, model_v))

    def update(self, model):
        self._update(model, update_fn=lambda e, m: self.decay * e + (1.0 - self.decay) * m)

    def set(self, model):
        self._update(model, update_fn=lambda e, m: m)


class ModelEmaV3(nn.Module):
    def __init__(self, model, decay=0.9, min_decay=0.0, use_warmup=True, warmup_gamma=1.0, warmup_power=2 / 3):
        super().__init__()
        self.module = deepcopy(model).eval()
        self.decay, self.min_decay = decay, min_decay
        self.use_warmup, self.warmup_gamma, self.warmup_power = use_warmup, warmup_gamma, warmup_power

    def get_decay(self, step):
        if self.use_warmup:
            d = 1 - (1 + step / self.warmup_gamma) ** -self.warmup_power
            return max(min(d, self.decay), self.min_decay)
        return self.decay

    @torch.no_grad()
    def update(self, model, step):
        decay = self.get_decay(step)
        ema_p = [p for p in self.module.parameters()]
        mod_p = [p for p in model.parameters()]
        torch._foreach_lerp_(ema_p, mod_p, weight=1.0 - decay)
        for ema_b, b in zip(self.module.buffers(), model.buffers()):
            if ema_b.is_floating_point():
                ema_b.lerp_(b, weight=1.0 - decay)
            else:
                ema_b.copy_(b)
        return decay


ema2 = ModelEmaV2(model, decay=0.8)
ema3 = ModelEmaV3(model, decay=0.8)
print("ema copies", ema2.module.training, model.training, ema2.module.head.weight is model.head.weight,
      ema2.module.head.weight.requires_grad)
print("decays", [round(ema3.get_decay(s), 4) for s in (0, 1, 5, 50)])
X = npt(8, 2, 4)
Y = torch.from_numpy(rng.integers(0, 3, 8))
for step in range(4):
    loss = F.cross_entropy(model(X), Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.steps += 1
    ema2.update(model)
    d = ema3.update(model, step)
    print("step", step, round(loss.item(), 4), round(d, 4), r(ema2.module.head.bias, 3), r(ema3.module.head.bias, 3))
print("ema steps", ema2.module.steps.item(), ema3.module.steps.item(), ema2.module.steps.dtype)

manual = deepcopy(ema2.module)
with torch.no_grad():
    for e, m in zip(manual.parameters(), model.parameters()):
        e.mul_(0.8).add_(m.detach(), alpha=0.2)
    diff = [(a - b).abs().max().item() for a, b in zip(manual.parameters(), ema2.module.parameters())]
ema2.update(model)
diff = [(a - b).abs().max().item() for a, b in zip(manual.parameters(), ema2.module.parameters())]
print("mul_add matches", max(diff) < 1e-6)
ema2.set(model)
print("set", all(torch.equal(a, b) for a, b in zip(ema2.module.parameters(), model.parameters())))
with torch.no_grad():
    print("eval ema", r(ema3.module(X)[0], 3), r(model.eval()(X)[0], 3))
sd = ema2.state_dict()
print("ema sd", list(sd)[:3], len(sd))
st = opt.state_dict()
print("opt state", len(st["state"]), sorted(st["state"][0].keys()), st["param_groups"][0]["params"][:3])
print("lr_scale kept", [round(g["lr_scale"], 3) for g in st["param_groups"]][:4])
print("step dtype", st["state"][0]["step"].dtype, st["state"][0]["step"].item())
try:
    torch.optim.AdamW([{"params": [model.head.weight]}, {"params": [model.head.weight]}])
except ValueError as e:
    print("ValueError", e)
try:
    torch.optim.SGD([{"params": model.head.bias, "lr": 0.1}], momentum=0.9, weight_decay=-1)
except ValueError as e:
    print("ValueError", e)
