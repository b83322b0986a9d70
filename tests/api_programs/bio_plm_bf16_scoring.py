"""Protein language model scoring in reduced precision, as variant-effect pipelines run it: a small masked LM cast
to bfloat16 (and autocast on the CPU), masked-marginal scores for point mutations, per-position entropy with
torch.special.entr, logit-transformed pathogenicity probabilities, nanmean over positions with missing scores,
covariance/correlation of embeddings in bfloat16 and float16, and the dtype errors mixed precision raises."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
AA = "ACDEFGHIKLMNPQRSTVWY"
MASK = 20
wt = "MKTAYIAKQRQISFVK"
tokens = torch.tensor([AA.index(c) for c in wt])


class TinyLM(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.emb = nn.Embedding(21, d)
        self.pos = nn.Parameter(torch.randn(len(wt), d) * 0.1)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.lm = nn.Linear(d, 20)

    def forward(self, x):
        h = self.enc(self.emb(x) + self.pos)
        return self.lm(h), h


model = TinyLM().eval()
with torch.no_grad():
    logits32, h32 = model(tokens[None])
model_bf = TinyLM().eval()
model_bf.load_state_dict(model.state_dict())
model_bf = model_bf.to(torch.bfloat16)
print("param dtypes", {p.dtype for p in model_bf.parameters()}, model_bf.pos.dtype)
with torch.no_grad():
    logits_bf, h_bf = model_bf(tokens[None])
print(
    "bf16 logits", logits_bf.dtype, logits_bf.shape, round((logits_bf.float() - logits32).abs().max().item(), 1) < 1.0
)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    logits_ac, _ = model(tokens[None])
print("autocast", logits_ac.dtype, torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))

masked = tokens.repeat(len(wt), 1)
masked[torch.arange(len(wt)), torch.arange(len(wt))] = MASK
with torch.no_grad():
    mm_logits, _ = model(masked)
logp = mm_logits[torch.arange(len(wt)), torch.arange(len(wt))].log_softmax(-1)
print("masked marginals", logp.shape, logp.exp().sum(-1).round(decimals=4).unique().tolist())
muts = [("K2R", 1, "R"), ("A4G", 3, "G"), ("I6T", 5, "T"), ("F14L", 13, "L")]
scores = torch.stack([logp[i, AA.index(m)] - logp[i, tokens[i]] for _, i, m in muts])
print("mutation scores", [n for n, _, _ in muts], scores.round(decimals=3).tolist())

p32 = logp.exp()
ent32 = torch.special.entr(p32).sum(-1)
p_bf = logp.exp().to(torch.bfloat16)
ent_bf = torch.special.entr(p_bf)
p_h = logp.exp().half()
print("entr bf16 sample", ent_bf[0, :6].float().tolist())
print("entr f16 sample", torch.special.entr(p_h)[1, :6].float().tolist())
print("entropy f32", ent32[:4].round(decimals=4).tolist(), "bf16 total", ent_bf.float().sum(-1)[:4].tolist())
prob = torch.sigmoid(-scores)
print("logit bf16", torch.logit(prob.to(torch.bfloat16), eps=1e-3).float().tolist())
print(
    "logit f16",
    torch.logit(prob.half()).float().tolist(),
    torch.special.logit(torch.tensor([0.0, 1.0, 0.25]).half()).tolist(),
)

site = torch.full((3, len(wt)), float("nan"))
site[0, ::2] = logp.max(-1).values[::2]
site[1, 1::3] = logp.min(-1).values[1::3]
site[2, :5] = ent32[:5]
print("nanmean f32", torch.nanmean(site, 1).round(decimals=4).tolist())
print("nanmean bf16", torch.nanmean(site.to(torch.bfloat16), 1).float().tolist(), torch.nanmean(site.half()).item())
print(
    "nansum/nanmedian",
    torch.nansum(site, 1).round(decimals=3).tolist(),
    torch.nanmedian(site, 1).values.round(decimals=3).tolist(),
)

emb = h32[0, :, :6].T.contiguous()
print("cov f32", torch.cov(emb)[0, :3].round(decimals=4).tolist())
print("cov bf16", torch.cov(emb.to(torch.bfloat16))[0, :3].float().tolist())
print("corrcoef f16", torch.corrcoef(emb.half())[1, :3].float().tolist())
hb = h32.to(torch.bfloat16)
print("cos sim bf16", F.cosine_similarity(hb[0, :3], hb[0, 3:6], dim=-1).float().tolist(), h_bf.dtype)

try:
    model_bf(tokens[None].float())
except Exception as e:
    print(type(e).__name__, e)
try:
    model_bf.lm(h32)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.special.entr(torch.tensor([1, 2]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.nanmean(torch.tensor([1, 2]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cov(emb, fweights=torch.ones(6))
except Exception as e:
    print(type(e).__name__, e)
