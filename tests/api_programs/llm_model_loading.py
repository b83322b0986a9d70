"""Loading and casting an LLM the way inference libraries do: building on the meta device (torch.device as a
context manager), to_empty + load_state_dict(assign=True), checkpoint key renaming (HF <-> Meta names, fused qkv
split with torch.split/chunk), torch.set_default_dtype, .to(bfloat16) / .half() and which tensors stay float32,
autocast on the CPU, shared-storage checks, state-dict sizes, and inference_mode tensors' rules."""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


class Attn(nn.Module):
    def __init__(self, d=8, h=2):
        super().__init__()
        self.qkv_proj = nn.Linear(d, 3 * d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)
        self.h = h

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv_proj(x).chunk(3, dim=-1)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, C))


class Decoder(nn.Module):
    def __init__(self, vocab=11, d=8):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([Attn(d), Attn(d)])
        self.norm = nn.RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("inv_freq", 1.0 / 10000 ** (torch.arange(0, d, 2).float() / d), persistent=False)

    def forward(self, ids):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = x + layer(x)
        return self.lm_head(self.norm(x))


# a "Meta-format" checkpoint with separate wq/wk/wv and different names
d = 8
meta_ckpt = {"tok_embeddings.weight": torch.cos(torch.arange(88.0)).view(11, 8) * 0.5,
             "norm.weight": torch.linspace(0.8, 1.2, 8),
             "output.weight": torch.sin(torch.arange(88.0)).view(11, 8) * 0.5}
for i in range(2):
    for j, name in enumerate(("wq", "wk", "wv", "wo")):
        meta_ckpt[f"layers.{i}.attention.{name}.weight"] = torch.sin(
            torch.arange(64.0) * (0.3 + 0.1 * j) + i).view(8, 8) * 0.4

buf = io.BytesIO()
torch.save(meta_ckpt, buf)
print("checkpoint bytes > payload:", buf.tell() > sum(t.numel() * 4 for t in meta_ckpt.values()))
buf.seek(0)
sd = torch.load(buf, map_location="cpu", weights_only=True)
print("loaded keys:", len(sd), "mmap-free tensors contiguous:", all(t.is_contiguous() for t in sd.values()))


def convert(sd):
    out = {"embed_tokens.weight": sd["tok_embeddings.weight"], "norm.weight": sd["norm.weight"],
           "lm_head.weight": sd["output.weight"]}
    for i in range(2):
        p = f"layers.{i}.attention."
        out[f"layers.{i}.qkv_proj.weight"] = torch.cat([sd[p + "wq.weight"], sd[p + "wk.weight"],
                                                         sd[p + "wv.weight"]], dim=0)
        out[f"layers.{i}.o_proj.weight"] = sd[p + "wo.weight"]
    return out


hf_sd = convert(sd)
print("converted:", sorted(hf_sd)[:3], tuple(hf_sd["layers.0.qkv_proj.weight"].shape))
wq, wk, wv = torch.split(hf_sd["layers.1.qkv_proj.weight"], [8, 8, 8], dim=0)
print("split back equal:", torch.equal(wk, sd["layers.1.attention.wk.weight"]))

# meta-device construction, then to_empty and assign
with torch.device("meta"):
    model = Decoder()
print("meta params:", model.lm_head.weight.device, model.lm_head.weight.is_meta, model.inv_freq.device)
print("meta repr:", model.norm.weight)
try:
    model.lm_head.weight.sum().item()
except (RuntimeError, NotImplementedError) as e:
    print(type(e).__name__, str(e).splitlines()[0][:80])
model = model.to_empty(device="cpu")
with torch.no_grad():
    model.inv_freq.copy_(1.0 / 10000 ** (torch.arange(0, d, 2).float() / d))
res = model.load_state_dict(hf_sd, assign=True, strict=True)
print("load result:", res)
print("assign shares storage:", model.lm_head.weight.data_ptr() == hf_sd["lm_head.weight"].data_ptr(),
      "is Parameter:", isinstance(model.lm_head.weight, nn.Parameter), model.lm_head.weight.requires_grad)
ids = torch.tensor([[1, 4, 2, 9, 3]])
with torch.inference_mode():
    ref = model(ids)
print("logits:", ref[0, -1, :5], "inference:", ref.is_inference())
for bad in (lambda: ref.add_(1), lambda: (torch.ones(1, 5, 11, requires_grad=True) * ref).sum().backward()):
    try:
        bad()
        print("no error")
    except RuntimeError as e:
        print("RuntimeError:", str(e)[:90])
print("clone outside inference_mode is normal:", ref.clone().is_inference())

# casting: bf16 parameters, float32 buffers untouched by .to(dtype)? (buffers are cast too)
m16 = Decoder()
m16.load_state_dict(hf_sd)
m16.to(torch.bfloat16)
print("dtypes after .to(bf16):", {n: str(t.dtype) for n, t in list(m16.state_dict().items())[:2]},
      "buffer:", m16.inv_freq.dtype)
out16 = m16(ids)
print("bf16 logits dtype:", out16.dtype, "close to fp32:", torch.allclose(out16.float(), ref, atol=0.1))
print("argmax agrees:", torch.equal(out16.argmax(-1), ref.argmax(-1)))
mh = Decoder().half()
print("half:", mh.lm_head.weight.dtype, mh.embed_tokens.weight.element_size())

# autocast on CPU: linear in bf16, softmax/norm per policy
model.eval()
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = model.lm_head(torch.ones(1, 8))
    s = F.softmax(h, -1)
    e = model.embed_tokens(ids)
print("autocast dtypes: linear", h.dtype, "softmax", s.dtype, "embedding", e.dtype)
print("is_autocast_enabled outside:", torch.is_autocast_enabled("cpu"))

# default dtype switch (some loaders do this around construction)
old = torch.get_default_dtype()
torch.set_default_dtype(torch.float64)
m64 = nn.Linear(2, 2)
print("built under float64:", m64.weight.dtype, torch.tensor([1.5]).dtype, torch.arange(3).dtype)
torch.set_default_dtype(old)
print("restored:", torch.get_default_dtype(), torch.tensor([1.5]).dtype)
try:
    torch.set_default_dtype(torch.int64)
except TypeError as e:
    print("TypeError:", e)

# parameter bookkeeping
sizes = {k: v.numel() * v.element_size() for k, v in model.state_dict().items()}
print("state_dict MB:", round(sum(sizes.values()) / 2 ** 20, 6), "largest:", max(sizes, key=sizes.get))
print("no inv_freq in state_dict:", "inv_freq" not in model.state_dict())
missing = model.load_state_dict({k: v for k, v in hf_sd.items() if "norm" not in k}, strict=False)
print("missing:", missing.missing_keys, "unexpected:", missing.unexpected_keys)
try:
    bad = dict(hf_sd)
    bad["lm_head.weight"] = torch.zeros(12, 8)
    model.load_state_dict(bad)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[1].strip()[:130])
