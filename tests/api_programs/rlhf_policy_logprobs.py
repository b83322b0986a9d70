"""A tiny causal LM as RLHF code scores it: left-padded prompt+response batches with attention masks and position
ids from cumsum, per-token log-probs gathered from log_softmax (and the logsumexp and cross_entropy forms checked
against them), a response mask that drops prompt and padding tokens, entropy from logits, and the misuse of
gather that PyTorch refuses."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, H, L = 17, 16, 2, 2
PAD = 0


class TinyCausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D, padding_idx=PAD)
        self.pos = nn.Embedding(32, D)
        layer = nn.TransformerEncoderLayer(D, H, dim_feedforward=32, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, L, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, V, bias=False)
        self.lm_head.weight = self.tok.weight

    def forward(self, input_ids, attention_mask):
        position_ids = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
        x = self.tok(input_ids) + self.pos(position_ids)
        T = input_ids.shape[1]
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        h = self.blocks(x, mask=causal, src_key_padding_mask=attention_mask == 0, is_causal=True)
        return self.lm_head(self.ln_f(h))


prompts = [[5, 6, 7], [3, 4], [9, 10, 11, 12]]
responses = [[1, 2], [8, 9, 10, 11], [13]]
seqs = [p + r for p, r in zip(prompts, responses)]
T = max(len(s) for s in seqs)
input_ids = torch.full((len(seqs), T), PAD, dtype=torch.long)
attention_mask = torch.zeros(len(seqs), T, dtype=torch.long)
response_mask = torch.zeros(len(seqs), T, dtype=torch.bool)
for i, (p, r) in enumerate(zip(prompts, responses)):
    s = p + r
    input_ids[i, T - len(s) :] = torch.tensor(s)
    attention_mask[i, T - len(s) :] = 1
    response_mask[i, T - len(r) :] = True
print("input_ids:", input_ids.tolist())
print("attention_mask:", attention_mask.tolist())
print("position_ids:", (attention_mask.cumsum(-1) - 1).clamp(min=0).tolist())

model = TinyCausalLM()
print("tied weights:", model.lm_head.weight is model.tok.weight)
print("params:", sum(p.numel() for p in model.parameters()))
logits = model(input_ids, attention_mask)
print("logits:", tuple(logits.shape), logits.dtype, logits.grad_fn.name())

shift_logits = logits[:, :-1, :]
labels = input_ids[:, 1:]
mask = response_mask[:, 1:].float()
logp = F.log_softmax(shift_logits, dim=-1)
token_logps = torch.gather(logp, 2, labels.unsqueeze(-1)).squeeze(-1)
print("token_logps grad_fn:", token_logps.grad_fn.name(), tuple(token_logps.shape))
alt = shift_logits.gather(-1, labels[..., None]).squeeze(-1) - shift_logits.logsumexp(-1)
print("gather vs logsumexp max diff < 1e-5:", bool((token_logps - alt).abs().max() < 1e-5))
ce = -F.cross_entropy(shift_logits.reshape(-1, V), labels.reshape(-1), reduction="none").view_as(labels)
print("gather vs cross_entropy max diff < 1e-5:", bool((token_logps - ce).abs().max() < 1e-5))
seq_logps = (token_logps * mask).sum(-1)
avg_logps = seq_logps / mask.sum(-1)
print("seq logps:", seq_logps.detach().round(decimals=4).tolist())
print("avg logps:", avg_logps.detach().round(decimals=4).tolist())

probs = F.softmax(shift_logits, dim=-1)
entropy = torch.logsumexp(shift_logits, -1) - (probs * shift_logits).sum(-1)
entropy2 = -(probs * logp).sum(-1)
print("entropy close:", torch.allclose(entropy, entropy2, atol=1e-5))
print("masked mean entropy:", round(((entropy * mask).sum() / mask.sum()).item(), 4))

loss = -(seq_logps.sum() / mask.sum())
loss.backward()
print("loss:", round(loss.item(), 4), loss.grad_fn.name())
g = model.tok.weight.grad
print("emb grad pad row zero:", bool(g[PAD].abs().sum() == 0), "norm:", round(g.norm().item(), 4))
print("head grad is emb grad:", model.lm_head.weight.grad is model.tok.weight.grad)

with torch.no_grad():
    lp = torch.log_softmax(model(input_ids, attention_mask)[:, :-1], -1)
    print("no_grad requires_grad:", lp.requires_grad, lp.grad_fn)

for bad in [
    lambda: torch.gather(logp, 2, labels.unsqueeze(-1).float()),
    lambda: torch.gather(logp, 2, labels),
    lambda: torch.gather(logp, 3, labels.unsqueeze(-1)),
    lambda: torch.gather(logp, 2, (labels + V).unsqueeze(-1)),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
