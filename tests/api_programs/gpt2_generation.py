"""A GPT-2-style decoder and the generation utilities HuggingFace writes around it: Conv1D projections, a causal
bias buffer with masked_bias, past key values as tuples grown by torch.cat, temperature, top-k/top-p filtering
with sort/cumsum/scatter, repetition penalty with gather/scatter_, multinomial sampling, greedy and beam search,
and no_grad/inference_mode as decorators."""

# ruff: noqa
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(1)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class Attention(nn.Module):
    def __init__(self, n_embd, n_head, n_ctx):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones((n_ctx, n_ctx), dtype=torch.bool)).view(1, 1, n_ctx, n_ctx),
                             persistent=False)
        self.register_buffer("masked_bias", torch.tensor(-1e4), persistent=False)
        self.n_head = n_head
        self.split_size = n_embd
        self.c_attn = Conv1D(3 * n_embd, n_embd)
        self.c_proj = Conv1D(n_embd, n_embd)

    def _split_heads(self, x):
        new_shape = x.size()[:-1] + (self.n_head, x.size(-1) // self.n_head)
        return x.view(new_shape).permute(0, 2, 1, 3)

    def _merge_heads(self, x):
        x = x.permute(0, 2, 1, 3).contiguous()
        return x.view(x.size()[:-2] + (x.size(-2) * x.size(-1),))

    def _attn(self, q, k, v, attention_mask=None):
        w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.size(-1) ** 0.5, dtype=q.dtype)
        qlen, klen = q.size(-2), k.size(-2)
        causal = self.bias[:, :, klen - qlen: klen, :klen]
        mask_value = torch.finfo(w.dtype).min
        mask_value = torch.full([], mask_value, dtype=w.dtype, device=w.device)
        w = torch.where(causal, w.to(w.dtype), mask_value)
        if attention_mask is not None:
            w = w + attention_mask
        w = nn.functional.softmax(w, dim=-1).type(v.dtype)
        return torch.matmul(w, v), w

    def forward(self, x, layer_past=None, use_cache=False, attention_mask=None):
        q, k, v = self.c_attn(x).split(self.split_size, dim=2)
        q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)
        if layer_past is not None:
            past_key, past_value = layer_past
            k = torch.cat((past_key, k), dim=-2)
            v = torch.cat((past_value, v), dim=-2)
        present = (k, v) if use_cache is True else None
        a, w = self._attn(q, k, v, attention_mask)
        return self.c_proj(self._merge_heads(a)), present


class Block(nn.Module):
    def __init__(self, n_embd, n_head, n_ctx):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd, eps=1e-5)
        self.attn = Attention(n_embd, n_head, n_ctx)
        self.ln_2 = nn.LayerNorm(n_embd, eps=1e-5)
        self.c_fc = Conv1D(4 * n_embd, n_embd)
        self.c_proj = Conv1D(n_embd, 4 * n_embd)

    def forward(self, x, layer_past=None, use_cache=False, attention_mask=None):
        a, present = self.attn(self.ln_1(x), layer_past, use_cache, attention_mask)
        x = x + a
        h = nn.functional.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.c_proj(h), present


class GPT2(nn.Module):
    def __init__(self, vocab=23, n_embd=16, n_head=2, n_layer=2, n_ctx=32):
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(n_ctx, n_embd)
        self.h = nn.ModuleList([Block(n_embd, n_head, n_ctx) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, input_ids, past_key_values=None, use_cache=True, attention_mask=None, position_ids=None):
        if past_key_values is None:
            past_length = 0
            past_key_values = tuple([None] * len(self.h))
        else:
            past_length = past_key_values[0][0].size(-2)
        if position_ids is None:
            position_ids = torch.arange(past_length, input_ids.size(-1) + past_length, dtype=torch.long)
            position_ids = position_ids.unsqueeze(0).view(-1, input_ids.size(-1))
        if attention_mask is not None:
            attention_mask = attention_mask.view(input_ids.size(0), -1)[:, None, None, :]
            attention_mask = (1.0 - attention_mask.to(torch.float32)) * torch.finfo(torch.float32).min
        x = self.wte(input_ids) + self.wpe(position_ids)
        presents = () if use_cache else None
        for block, layer_past in zip(self.h, past_key_values):
            x, present = block(x, layer_past, use_cache, attention_mask)
            if use_cache:
                presents = presents + (present,)
        return self.lm_head(self.ln_f(x)), presents


def top_k_top_p_filtering(logits, top_k=0, top_p=1.0, filter_value=-float("Inf"), min_tokens_to_keep=1):
    if top_k > 0:
        top_k = min(max(top_k, min_tokens_to_keep), logits.size(-1))
        indices_to_remove = logits < torch.topk(logits, top_k)[0][..., -1, None]
        logits[indices_to_remove] = filter_value
    if top_p < 1.0:
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        sorted_indices_to_remove = cumulative_probs > top_p
        if min_tokens_to_keep > 1:
            sorted_indices_to_remove[..., :min_tokens_to_keep] = 0
        sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
        sorted_indices_to_remove[..., 0] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
        logits[indices_to_remove] = filter_value
    return logits


def repetition_penalty(input_ids, scores, penalty):
    score = torch.gather(scores, 1, input_ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    scores.scatter_(1, input_ids, score)
    return scores


model = GPT2()
with torch.no_grad():
    for name, p in model.named_parameters():
        if "ln" in name:
            p.copy_((1.0 if name.endswith("weight") else 0.0) + T(*p.shape) * 0.1)
        else:
            p.copy_(T(*p.shape) * 0.4)
model.eval()
print("buffers", sorted(model.state_dict().keys())[:4], len(model.state_dict()))
print("bias buffer", model.h[0].attn.bias.shape, model.h[0].attn.bias.dtype, model.h[0].attn.masked_bias.item())

prompt = torch.tensor([[3, 7, 1, 12], [5, 2, 9, 4]])
with torch.no_grad():
    full, _ = model(prompt, use_cache=False)
    logits, past = model(prompt[:, :3])
    step, past2 = model(prompt[:, 3:], past_key_values=past)
print("full", r(full[:, -1]))
print("cached", r(step[:, -1]), torch.allclose(full[:, -1], step[:, -1], atol=1e-5))
print("past", len(past2), type(past2[0]).__name__, tuple(past2[0][0].shape))

# left-padded batch: position ids from the attention mask's cumsum
am = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]])
pos = am.long().cumsum(-1) - 1
pos.masked_fill_(am == 0, 1)
print("pos", pos.tolist())
with torch.no_grad():
    lp, _ = model(prompt, attention_mask=am, position_ids=pos)
print("left padded", r(lp[0, -1]))


@torch.no_grad()
def greedy(model, ids, n):
    past = None
    cur = ids
    for _ in range(n):
        logits, past = model(cur, past_key_values=past)
        nxt = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, nxt], dim=-1)
        cur = nxt
    return ids


print("greedy", greedy(model, prompt, 5).tolist())
print("grad enabled", torch.is_grad_enabled())


@torch.inference_mode()
def sample(model, ids, n, temperature=0.8, top_k=5, top_p=0.9, penalty=1.3):
    gen = torch.Generator().manual_seed(0)
    past = None
    cur = ids
    valid = True
    first = None
    for _ in range(n):
        logits, past = model(cur, past_key_values=past)
        scores = logits[:, -1, :] / temperature
        scores = repetition_penalty(ids, scores, penalty)
        scores = top_k_top_p_filtering(scores, top_k=top_k, top_p=top_p)
        probs = F.softmax(scores, dim=-1)
        nxt = torch.multinomial(probs, num_samples=1, generator=gen)
        valid = valid and bool((probs.gather(1, nxt) > 0).all())
        first = probs if first is None else first
        ids = torch.cat([ids, nxt], dim=-1)
        cur = nxt
    return ids, first, valid


out, probs, valid = sample(model, prompt, 4)
print("sample shape", tuple(out.shape), out[:, :4].tolist(), out.is_inference(), out.dtype, valid)
print("support", (probs > 0).sum(-1).tolist())
print("first step probs", r(probs[probs > 0]))

scores = T(2, 10)
flt = top_k_top_p_filtering(scores.clone(), top_k=4)
print("topk kept", torch.isfinite(flt).sum(-1).tolist(), r(flt.nan_to_num(neginf=-99.0)))
flt = top_k_top_p_filtering(scores.clone(), top_p=0.7, min_tokens_to_keep=2)
print("topp kept", torch.isfinite(flt).sum(-1).tolist())
rp = repetition_penalty(torch.tensor([[0, 1], [2, 2]]), scores.clone(), 2.0)
print("penalty", r(rp[:, :3]))


@torch.no_grad()
def beam_search(model, ids, num_beams=3, max_new=4):
    batch = ids.size(0)
    ids = ids.unsqueeze(1).expand(batch, num_beams, ids.size(-1)).reshape(batch * num_beams, -1)
    beam_scores = torch.zeros((batch, num_beams), dtype=torch.float)
    beam_scores[:, 1:] = -1e9
    beam_scores = beam_scores.view((batch * num_beams,))
    for _ in range(max_new):
        logits, _ = model(ids, use_cache=False)
        next_scores = F.log_softmax(logits[:, -1, :], dim=-1) + beam_scores[:, None].expand_as(logits[:, -1, :])
        vocab = next_scores.shape[-1]
        next_scores = next_scores.view(batch, num_beams * vocab)
        next_scores, next_tokens = torch.topk(next_scores, 2 * num_beams, dim=1, largest=True, sorted=True)
        next_indices = torch.div(next_tokens, vocab, rounding_mode="floor")
        next_tokens = next_tokens % vocab
        beam_idx = (next_indices[:, :num_beams] + torch.arange(batch).unsqueeze(1) * num_beams).view(-1)
        ids = torch.cat([ids[beam_idx, :], next_tokens[:, :num_beams].reshape(-1, 1)], dim=-1)
        beam_scores = next_scores[:, :num_beams].reshape(-1)
    return ids.view(batch, num_beams, -1), beam_scores.view(batch, num_beams)


beams, bscores = beam_search(model, prompt)
print("beams", beams[:, 0].tolist())
print("beam scores", r(bscores))

# loss with shifted labels, as GPT2LMHeadModel computes it
logits, _ = model(prompt, use_cache=False)
shift_logits = logits[..., :-1, :].contiguous()
shift_labels = prompt[..., 1:].contiguous()
loss = nn.CrossEntropyLoss()(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
loss.backward()
print("lm loss", round(loss.item(), 4), "ppl", round(math.exp(loss.item()), 4))
print("tied grad", r(model.wte.weight.grad[3]))
