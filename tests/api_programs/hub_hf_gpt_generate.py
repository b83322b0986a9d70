"""HuggingFace-style GPT-2 generation written inline: Conv1D through torch.addmm, a causal bias buffer with
torch.where and finfo.min, past_key_values as a tuple of (k, v) per layer, position_ids from a left-padded
attention_mask's cumsum, greedy decoding with and without the cache, logits processors (repetition penalty,
temperature, top-k, top-p), seeded multinomial sampling, and beam search with a length penalty."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)

VOCAB, N_EMBD, N_HEAD, N_LAYER, N_POS, EOS = 40, 32, 4, 2, 32, 39


class Conv1D(nn.Module):
    """GPT-2's transposed linear layer (weight is in x out)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def __repr__(self):
        return "Conv1D(nf={nf}, nx={nx})".format(**self.__dict__, nx=self.weight.shape[0])

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class GPT2Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones((N_POS, N_POS), dtype=torch.bool)).view(1, 1, N_POS, N_POS),
                             persistent=False)
        self.c_attn = Conv1D(3 * N_EMBD, N_EMBD)
        self.c_proj = Conv1D(N_EMBD, N_EMBD)
        self.head_dim = N_EMBD // N_HEAD

    def _split_heads(self, t):
        return t.view(t.size()[:-1] + (N_HEAD, self.head_dim)).permute(0, 2, 1, 3)

    def forward(self, h, layer_past=None, attention_mask=None, use_cache=False):
        q, k, v = self.c_attn(h).split(N_EMBD, dim=2)
        q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)
        if layer_past is not None:
            past_key, past_value = layer_past
            k = torch.cat((past_key, k), dim=-2)
            v = torch.cat((past_value, v), dim=-2)
        present = (k, v) if use_cache else None
        w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.size(-1) ** 0.5, dtype=q.dtype)
        qlen, klen = q.size(-2), k.size(-2)
        causal = self.bias[:, :, klen - qlen:klen, :klen]
        mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
        w = torch.where(causal, w.to(w.dtype), mask_value)
        if attention_mask is not None:
            w = w + attention_mask
        w = nn.functional.softmax(w, dim=-1)
        out = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        return self.c_proj(out.view(out.size()[:-2] + (N_EMBD,))), present


class GPT2Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD, eps=1e-5)
        self.attn = GPT2Attention()
        self.ln_2 = nn.LayerNorm(N_EMBD, eps=1e-5)
        self.mlp = nn.Sequential(Conv1D(4 * N_EMBD, N_EMBD), nn.GELU(approximate="tanh"), Conv1D(N_EMBD, 4 * N_EMBD))

    def forward(self, h, layer_past=None, attention_mask=None, use_cache=False):
        a, present = self.attn(self.ln_1(h), layer_past, attention_mask, use_cache)
        h = h + a
        return h + self.mlp(self.ln_2(h)), present


class GPT2LMHeadModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, N_EMBD)
        self.wpe = nn.Embedding(N_POS, N_EMBD)
        self.h = nn.ModuleList([GPT2Block() for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(N_EMBD)
        self.lm_head = nn.Linear(N_EMBD, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, input_ids, past_key_values=None, attention_mask=None, position_ids=None, use_cache=True):
        past_length = 0 if past_key_values is None else past_key_values[0][0].size(-2)
        if position_ids is None:
            position_ids = torch.arange(past_length, input_ids.size(-1) + past_length).unsqueeze(0)
        if attention_mask is not None:
            attention_mask = attention_mask[:, None, None, :].to(torch.float32)
            attention_mask = (1.0 - attention_mask) * torch.finfo(torch.float32).min
        h = self.wte(input_ids) + self.wpe(position_ids)
        presents = () if use_cache else None
        for i, block in enumerate(self.h):
            h, present = block(h, None if past_key_values is None else past_key_values[i], attention_mask, use_cache)
            if use_cache:
                presents = presents + (present,)
        return self.lm_head(self.ln_f(h)), presents


def repetition_penalty(input_ids, scores, penalty):
    score = torch.gather(scores, 1, input_ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    return scores.scatter(1, input_ids, score)


def top_k_warper(scores, top_k, filter_value=-float("inf")):
    indices_to_remove = scores < torch.topk(scores, top_k)[0][..., -1, None]
    return scores.masked_fill(indices_to_remove, filter_value)


def top_p_warper(scores, top_p, filter_value=-float("inf"), min_tokens_to_keep=1):
    sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[..., -min_tokens_to_keep:] = 0
    indices_to_remove = sorted_indices_to_remove.scatter(1, sorted_indices, sorted_indices_to_remove)
    return scores.masked_fill(indices_to_remove, filter_value)


@torch.no_grad()
def greedy(model, input_ids, max_new_tokens, use_cache=True):
    past, cur, attn = None, input_ids, torch.ones_like(input_ids)
    for _ in range(max_new_tokens):
        feed = cur[:, -1:] if (use_cache and past is not None) else cur
        logits, past = model(feed, past_key_values=past if use_cache else None, use_cache=use_cache)
        next_tokens = torch.argmax(logits[:, -1, :], dim=-1)
        cur = torch.cat([cur, next_tokens[:, None]], dim=-1)
        attn = torch.cat([attn, attn.new_ones((attn.shape[0], 1))], dim=-1)
    return cur, past


@torch.no_grad()
def sample(model, input_ids, max_new_tokens, temperature=0.8, top_k=10, top_p=0.9, penalty=1.3):
    past, cur = None, input_ids
    unfinished = torch.ones(input_ids.shape[0], dtype=torch.long)
    for _ in range(max_new_tokens):
        logits, past = model(cur if past is None else cur[:, -1:], past_key_values=past)
        scores = repetition_penalty(cur, logits[:, -1, :], penalty)
        scores = top_p_warper(top_k_warper(scores / temperature, top_k), top_p)
        probs = nn.functional.softmax(scores, dim=-1)
        next_tokens = torch.multinomial(probs, num_samples=1).squeeze(1)
        next_tokens = next_tokens * unfinished + EOS * (1 - unfinished)
        cur = torch.cat([cur, next_tokens[:, None]], dim=-1)
        unfinished = unfinished & (next_tokens != EOS).long()
        if unfinished.max() == 0:
            break
    return cur


@torch.no_grad()
def beam_search(model, input_ids, num_beams, max_new_tokens, length_penalty=1.0):
    ids = input_ids.repeat_interleave(num_beams, dim=0)
    beam_scores = torch.zeros(num_beams)
    beam_scores[1:] = -1e9
    finished = []
    for _ in range(max_new_tokens):
        logits, _ = model(ids, use_cache=False)
        logp = F.log_softmax(logits[:, -1, :], dim=-1)
        next_scores = (logp + beam_scores[:, None]).view(-1)
        top_scores, top_idx = torch.topk(next_scores, 2 * num_beams, largest=True, sorted=True)
        beam_idx, token_idx = torch.div(top_idx, VOCAB, rounding_mode="floor"), top_idx % VOCAB
        new_ids, new_scores = [], []
        for s, b, t in zip(top_scores.tolist(), beam_idx.tolist(), token_idx.tolist()):
            seq = torch.cat([ids[b], torch.tensor([t])])
            if t == EOS:
                finished.append((s / (seq.numel() ** length_penalty), seq))
            else:
                new_ids.append(seq)
                new_scores.append(s)
            if len(new_ids) == num_beams:
                break
        ids, beam_scores = torch.stack(new_ids), torch.tensor(new_scores)
    for s, seq in zip(beam_scores.tolist(), ids):
        finished.append((s / (seq.numel() ** length_penalty), seq))
    finished.sort(key=lambda x: x[0], reverse=True)
    return finished[:num_beams]


model = GPT2LMHeadModel()
model.apply(lambda m: nn.init.normal_(m.weight, std=0.1) if isinstance(m, nn.Embedding) else None)
print(model.h[0])
print("tied lm_head", model.lm_head.weight is model.wte.weight, "params", sum(p.numel() for p in model.parameters()))
print("state_dict", len(model.state_dict()), [k for k in model.state_dict() if k.startswith("h.0.attn")])
model.eval()

prompt = torch.tensor([[5, 17, 3], [8, 2, 30]])
logits, past = model(prompt)
print("logits", logits.shape, "past", len(past), tuple(past[0][0].shape))
print("last logits", logits[0, -1, :6])

out_cache, past = greedy(model, prompt, 6, use_cache=True)
out_nocache, _ = greedy(model, prompt, 6, use_cache=False)
print("greedy", out_cache.tolist())
print("cache == no cache", torch.equal(out_cache, out_nocache), "cache len", past[1][1].shape[-2])

full, _ = model(out_cache[:, :-1], use_cache=False)
incr, p2 = model(out_cache[:, :4])
step, p2 = model(out_cache[:, 4:5], past_key_values=p2)
print("incremental matches full", torch.allclose(step[:, -1], full[:, 4], atol=1e-5))

left_padded = torch.tensor([[0, 0, 5, 17, 3], [9, 8, 8, 2, 30]])
mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
position_ids = (mask.long().cumsum(-1) - 1).masked_fill_(mask == 0, 1)
print("position_ids", position_ids.tolist())
lp, _ = model(left_padded, attention_mask=mask, position_ids=position_ids)
print("left-pad last logits match", torch.allclose(lp[0, -1], logits[0, -1], atol=1e-4))

scores = torch.tensor([[2.0, -1.0, 0.5, 3.0, -0.5, 1.0]])
print("rep penalty", repetition_penalty(torch.tensor([[0, 1]]), scores, 2.0))
print("top_k", top_k_warper(scores, 3))
print("top_p", top_p_warper(scores, 0.8))

torch.manual_seed(42)
print("sampled", sample(model, prompt, 8).tolist())

beams = beam_search(model, prompt[:1], num_beams=3, max_new_tokens=4, length_penalty=1.0)
for score, seq in beams:
    print(f"beam {score:.4f}", seq.tolist())

model.train()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
data = torch.randint(0, VOCAB - 1, (4, 12))
for step in range(3):
    logits, _ = model(data[:, :-1], use_cache=False)
    shift_logits = logits.contiguous()
    loss = F.cross_entropy(shift_logits.view(-1, VOCAB), data[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"lm step {step} loss {loss.item():.4f} ppl {loss.exp().item():.2f}")
print("wte grad shared", model.lm_head.weight.grad is model.wte.weight.grad)
