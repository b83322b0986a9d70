"""Hand-written LoRA: wrap chosen Linears via set_submodule, freeze the base, train A/B, merge and unmerge."""
import math
import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8, dropout=0.0):
        super().__init__()
        self.base = base
        self.r, self.scaling = r, alpha / r
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.merged = False
        base.weight.requires_grad_(False)
        if base.bias is not None:
            base.bias.requires_grad_(False)

    def forward(self, x):
        out = self.base(x)
        if not self.merged:
            out = out + (self.drop(x) @ self.lora_A.t() @ self.lora_B.t()) * self.scaling
        return out

    @torch.no_grad()
    def merge(self):
        self.base.weight += (self.lora_B @ self.lora_A) * self.scaling
        self.merged = True

    @torch.no_grad()
    def unmerge(self):
        self.base.weight -= (self.lora_B @ self.lora_A) * self.scaling
        self.merged = False

    def extra_repr(self):
        return f"r={self.r}, scaling={self.scaling}, merged={self.merged}"


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.ModuleDict({"q": nn.Linear(16, 16), "k": nn.Linear(16, 16), "v": nn.Linear(16, 16)})
        self.mlp = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))

    def forward(self, x):
        q, k, v = self.attn["q"](x), self.attn["k"](x), self.attn["v"](x)
        a = torch.softmax(q @ k.transpose(-2, -1) / 4.0, dim=-1) @ v
        return x + self.mlp(x + a)


model = nn.Sequential(Block(), Block(), nn.Linear(16, 3))
total = sum(p.numel() for p in model.parameters())
targets = [n for n, m in model.named_modules() if isinstance(m, nn.Linear) and n.split(".")[-1] in ("q", "v")]
print("targets", targets)
for n in targets:
    model.set_submodule(n, LoRALinear(model.get_submodule(n)))
for n, p in model.named_parameters():
    if "lora_" not in n:
        p.requires_grad_(False)
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("total", total, "now", sum(p.numel() for p in model.parameters()), "trainable", trainable,
      f"{100 * trainable / total:.2f}%")
print(model[0].attn)
print([n for n, p in model.named_parameters() if p.requires_grad][:4])

x = torch.randn(2, 5, 16)
y = torch.randint(0, 3, (2,))
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2, weight_decay=0.0)
before = model[0].attn["q"].base.weight.clone()
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(model(x).mean(1), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print("base unchanged", torch.equal(before, model[0].attn["q"].base.weight))
print("frozen grad", model[0].mlp[0].weight.grad, "B grad norm", round(model[1].attn["v"].lora_B.grad.norm().item(), 4))

model.eval()
with torch.no_grad():
    ref = model(x)
    for n in targets:
        model.get_submodule(n).merge()
    merged = model(x)
    print("merged close", torch.allclose(ref, merged, atol=1e-5), round((ref - merged).abs().max().item(), 4))
    for n in targets:
        model.get_submodule(n).unmerge()
    print("unmerged close", torch.allclose(ref, model(x), atol=1e-5))
print(model[0].attn["q"])

# state dict with only adapter weights, then fold into plain Linears
lora_sd = {k: v for k, v in model.state_dict().items() if "lora_" in k}
print(sorted(lora_sd)[:3], len(lora_sd))
for n in targets:
    m = model.get_submodule(n)
    m.merge()
    model.set_submodule(n, m.base)
print(type(model.get_submodule("0.attn.q")).__name__, "params", sum(p.numel() for p in model.parameters()))
with torch.no_grad():
    print("folded close", torch.allclose(ref, model(x), atol=1e-5))

fresh = nn.Sequential(Block(), Block(), nn.Linear(16, 3))
res = fresh.load_state_dict(lora_sd, strict=False)
print(len(res.missing_keys), res.unexpected_keys[:2])
try:
    model.get_submodule("0.attn.z")
except Exception as e:
    print(type(e).__name__, e)
try:
    model.set_submodule("0.nothere.q", nn.Identity())
except Exception as e:
    print(type(e).__name__, e)
try:
    model.get_submodule("0.attn.q.weight")
except Exception as e:
    print(type(e).__name__, e)
