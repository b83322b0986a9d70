"""Converting MoE checkpoints between layouts as model-porting scripts do: per-expert HuggingFace-style keys
(block_sparse_moe.experts.N.w1/w2/w3) fused into 3-D gate_up/down tensors and back, renamed with regexes,
saved and loaded through BytesIO with weights_only, a load_state_dict pre-hook that fuses on the fly, and the
strict-loading errors a wrong expert count gives."""

import io
import re

import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, d=4, h=6):
        super().__init__()
        self.w1 = nn.Linear(d, h, bias=False)
        self.w2 = nn.Linear(h, d, bias=False)
        self.w3 = nn.Linear(d, h, bias=False)


class HFBlock(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.gate = nn.Linear(4, n, bias=False)
        self.experts = nn.ModuleList(Expert() for _ in range(n))


class FusedBlock(nn.Module):
    def __init__(self, n=3, d=4, h=6):
        super().__init__()
        self.router = nn.Linear(d, n, bias=False)
        self.gate_up = nn.Parameter(torch.empty(n, 2 * h, d))
        self.down = nn.Parameter(torch.empty(n, d, h))
        self._register_load_state_dict_pre_hook(self._fuse_hf_keys)

    def _fuse_hf_keys(self, state_dict, prefix, local_metadata, strict, missing, unexpected, error_msgs):
        pat = re.compile(re.escape(prefix) + r"experts\.(\d+)\.(w[123])\.weight$")
        found = {}
        for k in list(state_dict):
            m = pat.match(k)
            if m:
                found[(int(m.group(1)), m.group(2))] = state_dict.pop(k)
        if found:
            n = 1 + max(i for i, _ in found)
            state_dict[prefix + "gate_up"] = torch.stack([torch.cat([found[(i, "w1")], found[(i, "w3")]])
                                                          for i in range(n)])
            state_dict[prefix + "down"] = torch.stack([found[(i, "w2")] for i in range(n)])
        if prefix + "gate.weight" in state_dict:
            state_dict[prefix + "router.weight"] = state_dict.pop(prefix + "gate.weight")

    def forward(self, x):
        w, idx = self.router(x).softmax(-1).topk(2, dim=-1)
        g, u = torch.einsum("td,ehd->teh", x, self.gate_up).chunk(2, dim=-1)
        y = torch.einsum("teh,edh->ted", F.silu(g) * u, self.down)
        return (y.gather(1, idx[..., None].expand(-1, -1, x.size(-1))) * w[..., None]).sum(1)


torch.manual_seed(0)
hf = HFBlock()
with torch.no_grad():
    for i, p in enumerate(hf.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32).view_as(p) * (0.2 + 0.03 * i)))
sd = hf.state_dict()
print("hf keys:", list(sd)[:5], len(sd))

renamed = {re.sub(r"^experts\.(\d+)\.", r"model.layers.0.block_sparse_moe.experts.\1.", k): v for k, v in sd.items()}
print("renamed:", sorted(renamed)[0])

buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=True)
print("loaded equal:", all(torch.equal(loaded[k], sd[k]) for k in sd), type(loaded).__name__)

fused = FusedBlock()
result = fused.load_state_dict(loaded)
print("load result:", result)
print("gate_up:", tuple(fused.gate_up.shape), torch.equal(fused.gate_up[1, :6], hf.experts[1].w1.weight),
      torch.equal(fused.gate_up[1, 6:], hf.experts[1].w3.weight))

x = torch.cos(torch.arange(20, dtype=torch.float32).view(5, 4) * 0.6)
y = fused(x)
ref = torch.zeros(5, 4)
w, idx = hf.gate(x).softmax(-1).topk(2, dim=-1)
for t in range(5):
    for j in range(2):
        e = hf.experts[idx[t, j]]
        ref[t] += w[t, j] * e.w2(F.silu(e.w1(x[t])) * e.w3(x[t]))
print("fused forward == per-expert:", torch.allclose(y, ref, atol=1e-5), y[0].round(decimals=4).tolist())

# un-fuse for export: chunk and unbind back to per-expert keys, saved as a plain dict of contiguous tensors
export = {"gate.weight": fused.router.weight.detach()}
for i, (gu, dn) in enumerate(zip(fused.gate_up.detach().unbind(0), fused.down.detach().unbind(0))):
    w1, w3 = gu.chunk(2, dim=0)
    export[f"experts.{i}.w1.weight"], export[f"experts.{i}.w3.weight"] = w1.clone(), w3.clone()
    export[f"experts.{i}.w2.weight"] = dn.clone()
print(HFBlock().load_state_dict(export))
buf2 = io.BytesIO()
torch.save({"model": export, "step": 10, "config": {"n_experts": 3}}, buf2)
buf2.seek(0)
ck = torch.load(buf2, weights_only=True)
print("checkpoint:", ck["step"], ck["config"], len(ck["model"]))

try:
    HFBlock(n=2).load_state_dict(export)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
    print(str(e).splitlines()[1].strip()[:60])
two = HFBlock(n=2)
try:
    two.load_state_dict({k: v for k, v in export.items() if not k.startswith("experts.2.")})
except Exception as e:
    print(type(e).__name__, e)
short = dict(export)
short["experts.0.w2.weight"] = short["experts.0.w2.weight"][:, :5]
try:
    HFBlock().load_state_dict(short)
except Exception as e:
    print(type(e).__name__, e)
