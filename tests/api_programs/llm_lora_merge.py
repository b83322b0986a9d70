"""LoRA as PEFT-style code does it: wrapping nn.Linear targets found by name, frozen base weights, kaiming/zero
init, alpha/r scaling, merge and unmerge with fan_in_fan_out, adapter-only state dicts, trainable-parameter counts,
a training step that moves only the adapters, DoRA's magnitude, and loading an adapter back with strict=False."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8, dropout=0.0):
        super().__init__()
        self.base_layer = base
        self.r, self.scaling = r, alpha / r
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        self.lora_dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)
        self.merged = False

    def delta_weight(self):
        return (self.lora_B.weight @ self.lora_A.weight) * self.scaling

    def merge(self):
        if not self.merged:
            self.base_layer.weight.data += self.delta_weight()
            self.merged = True

    def unmerge(self):
        if self.merged:
            self.base_layer.weight.data -= self.delta_weight()
            self.merged = False

    def forward(self, x):
        out = self.base_layer(x)
        if not self.merged:
            out = out + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling
        return out

    def extra_repr(self):
        return f"r={self.r}, scaling={self.scaling}"


class Block(nn.Module):
    def __init__(self, d=12):
        super().__init__()
        self.q_proj = nn.Linear(d, d)
        self.v_proj = nn.Linear(d, d)
        self.o_proj = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        h = self.norm(x)
        return x + self.o_proj(torch.tanh(self.q_proj(h)) * self.v_proj(h))


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(), Block())
        self.lm_head = nn.Linear(12, 5)

    def forward(self, x):
        return self.lm_head(self.blocks(x))


def det_init(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + i).view_as(p) * 0.25)


def inject_lora(model, targets, **kw):
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, nn.Linear) and child_name in targets:
                setattr(module, child_name, LoraLinear(child, **kw))


def count(model):
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    return f"trainable params: {trainable:,} || all params: {total:,} || trainable%: {100 * trainable / total:.4f}"


torch.manual_seed(0)
model = Tiny()
det_init(model)
x = torch.cos(torch.arange(3 * 4 * 12, dtype=torch.float32).reshape(3, 4, 12) * 0.13)
base_out = model(x).detach()

for p in model.parameters():
    p.requires_grad_(False)
inject_lora(model, {"q_proj", "v_proj"}, r=4, alpha=8)
print(count(model))
print(model.blocks[0])
lora_names = [n for n, p in model.named_parameters() if p.requires_grad]
print("trainable:", lora_names)
print("B zero at init -> same output:", torch.equal(model(x), base_out))
print("A init bound ok:", model.blocks[0].q_proj.lora_A.weight.abs().max().item() <= 1 / math.sqrt(12) + 1e-6)

# deterministic adapters so the numbers below do not depend on the RNG stream
with torch.no_grad():
    for i, (n, p) in enumerate(model.named_parameters()):
        if "lora_" in n:
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 0.9 + i).view_as(p) * 0.2)

opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2, weight_decay=0.0)
frozen_before = model.blocks[0].q_proj.base_layer.weight.clone()
target = torch.arange(12).remainder(5).reshape(3, 4)
for step in range(3):
    logits = model(x)
    loss = F.cross_entropy(logits.reshape(-1, 5), target.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print("base frozen:", torch.equal(frozen_before, model.blocks[0].q_proj.base_layer.weight),
      "base grad:", model.blocks[0].q_proj.base_layer.weight.grad)
print("optimizer groups:", len(opt.param_groups), "params:", len(opt.param_groups[0]["params"]),
      "state keys:", sorted(opt.state[opt.param_groups[0]["params"][0]].keys()))

with torch.no_grad():
    adapted = model(x)
    lora = model.blocks[1].v_proj
    print("delta weight:", tuple(lora.delta_weight().shape), "rank:",
          torch.linalg.matrix_rank(lora.delta_weight()).item())
    for m in model.modules():
        if isinstance(m, LoraLinear):
            m.merge()
    merged = model(x)
    print("merged == adapted:", torch.allclose(merged, adapted, atol=1e-5))
    for m in model.modules():
        if isinstance(m, LoraLinear):
            m.unmerge()
    print("unmerge restores base:", torch.allclose(model.blocks[0].q_proj.base_layer.weight, frozen_before,
                                                   atol=1e-6))
    print("unmerged == adapted:", torch.allclose(model(x), adapted, atol=1e-5))

# adapter-only checkpoint, then load into a fresh wrapped model
adapter_sd = {k: v.clone() for k, v in model.state_dict().items() if "lora_" in k}
print("adapter keys:", len(adapter_sd), list(adapter_sd)[:2])
fresh = Tiny()
det_init(fresh)
inject_lora(fresh, {"q_proj", "v_proj"}, r=4, alpha=8)
res = fresh.load_state_dict(adapter_sd, strict=False)
print("missing:", len(res.missing_keys), "unexpected:", res.unexpected_keys, res.missing_keys[:2])
with torch.no_grad():
    print("reloaded == adapted:", torch.allclose(fresh(x), adapted, atol=1e-5))
try:
    fresh.load_state_dict(adapter_sd)
except RuntimeError as e:
    print("strict load:", [line[:120] for line in str(e).splitlines()])


# merge_and_unload: replace wrappers by plain Linear layers
def merge_and_unload(model):
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, LoraLinear):
                child.merge()
                setattr(module, child_name, child.base_layer)
    return model


plain = merge_and_unload(fresh)
print("after unload:", type(plain.blocks[0].q_proj).__name__, count(plain))
with torch.no_grad():
    print("unloaded output:", plain(x)[0, 0], torch.allclose(plain(x), adapted, atol=1e-5))

# fan_in_fan_out (GPT-2 Conv1D stores W as (in, out)) and DoRA's column-norm magnitude
W_conv1d = model.blocks[0].q_proj.base_layer.weight.T.contiguous()
delta = model.blocks[0].q_proj.delta_weight()
merged_conv = W_conv1d + delta.T
print("Conv1D merge matches:", torch.allclose(merged_conv.T, model.blocks[0].q_proj.base_layer.weight + delta))
W0 = model.blocks[0].q_proj.base_layer.weight
magnitude = torch.linalg.norm(W0, dim=1)
W_dora = (W0 + delta) / torch.linalg.norm(W0 + delta, dim=1, keepdim=True) * magnitude[:, None]
print("DoRA magnitude kept:", torch.allclose(W_dora.norm(dim=1), magnitude, atol=1e-5), magnitude[:4])
print("requires_grad flags:", {n: p.requires_grad for n, p in model.blocks[0].q_proj.named_parameters()})
