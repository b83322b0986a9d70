"""HuggingFace-style T5 encoder-decoder written inline: T5LayerNorm (no mean, no bias), relative position buckets
(bidirectional and causal) shared from the first layer, cross-attention with an encoder padding mask, shift_tokens_right
and a DataCollatorForSeq2Seq padding labels with -100 through pad_sequence (right and left padding_side), torch.optim
Adafactor with get_linear_schedule_with_warmup, and beam search with no_repeat_ngram_size and BeamHypotheses."""

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
torch.set_printoptions(precision=4)

D_MODEL, N_HEADS, D_KV, D_FF, VOCAB, PAD, EOS, START = 32, 4, 8, 64, 30, 0, 1, 0
NUM_BUCKETS, MAX_DIST = 8, 16


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.weight * (hidden_states * torch.rsqrt(variance + self.variance_epsilon))


def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)).to(torch.long)
    relative_position_if_large = torch.min(relative_position_if_large,
                                           torch.full_like(relative_position_if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


class T5Attention(nn.Module):
    def __init__(self, is_decoder, has_relative_attention_bias):
        super().__init__()
        self.is_decoder = is_decoder
        self.has_relative_attention_bias = has_relative_attention_bias
        self.q = nn.Linear(D_MODEL, N_HEADS * D_KV, bias=False)
        self.k = nn.Linear(D_MODEL, N_HEADS * D_KV, bias=False)
        self.v = nn.Linear(D_MODEL, N_HEADS * D_KV, bias=False)
        self.o = nn.Linear(N_HEADS * D_KV, D_MODEL, bias=False)
        if has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(NUM_BUCKETS, N_HEADS)

    def compute_bias(self, query_length, key_length):
        context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        relative_position = memory_position - context_position
        buckets = relative_position_bucket(relative_position, bidirectional=not self.is_decoder,
                                           num_buckets=NUM_BUCKETS, max_distance=MAX_DIST)
        return self.relative_attention_bias(buckets).permute([2, 0, 1]).unsqueeze(0)

    def forward(self, hidden, mask=None, kv=None, position_bias=None):
        b, qlen = hidden.shape[:2]
        src = hidden if kv is None else kv

        def shape(x):
            return x.view(b, -1, N_HEADS, D_KV).transpose(1, 2)

        q, k, v = shape(self.q(hidden)), shape(self.k(src)), shape(self.v(src))
        scores = torch.matmul(q, k.transpose(3, 2))  # T5 does not scale
        if position_bias is None:
            if self.has_relative_attention_bias:
                position_bias = self.compute_bias(qlen, k.shape[2])
            else:
                position_bias = torch.zeros((1, N_HEADS, qlen, k.shape[2]), dtype=scores.dtype)
            if mask is not None:
                position_bias = position_bias + mask
        scores = scores + position_bias
        attn = F.softmax(scores.float(), dim=-1).type_as(scores)
        out = torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, -1, N_HEADS * D_KV)
        return self.o(out), position_bias


class T5Block(nn.Module):
    def __init__(self, is_decoder, first):
        super().__init__()
        self.is_decoder = is_decoder
        self.ln_sa = T5LayerNorm(D_MODEL)
        self.self_attn = T5Attention(is_decoder, first)
        if is_decoder:
            self.ln_ca = T5LayerNorm(D_MODEL)
            self.cross_attn = T5Attention(is_decoder, False)
        self.ln_ff = T5LayerNorm(D_MODEL)
        self.wi = nn.Linear(D_MODEL, D_FF, bias=False)
        self.wo = nn.Linear(D_FF, D_MODEL, bias=False)

    def forward(self, h, mask, bias, enc=None, enc_mask=None, enc_bias=None):
        a, bias = self.self_attn(self.ln_sa(h), mask, position_bias=bias)
        h = h + a
        if self.is_decoder:
            a, enc_bias = self.cross_attn(self.ln_ca(h), enc_mask, kv=enc, position_bias=enc_bias)
            h = h + a
        return h + self.wo(F.relu(self.wi(self.ln_ff(h)))), bias, enc_bias


def extended_mask(attention_mask, causal=False):
    m = attention_mask[:, None, None, :].float()
    if causal:
        n = attention_mask.shape[1]
        m = m * torch.tril(torch.ones(n, n))[None, None]
    return (1.0 - m) * torch.finfo(torch.float32).min


def shift_tokens_right(input_ids, pad_token_id, decoder_start_token_id):
    shifted = input_ids.new_zeros(input_ids.shape)
    shifted[:, 1:] = input_ids[:, :-1].clone()
    shifted[:, 0] = decoder_start_token_id
    shifted.masked_fill_(shifted == -100, pad_token_id)
    return shifted


class T5(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Embedding(VOCAB, D_MODEL)
        self.encoder = nn.ModuleList([T5Block(False, i == 0) for i in range(2)])
        self.decoder = nn.ModuleList([T5Block(True, i == 0) for i in range(2)])
        self.enc_ln, self.dec_ln = T5LayerNorm(D_MODEL), T5LayerNorm(D_MODEL)

    def encode(self, ids, mask):
        h, bias, ext = self.shared(ids), None, extended_mask(mask)
        for blk in self.encoder:
            h, bias, _ = blk(h, ext, bias)
        return self.enc_ln(h)

    def decode(self, dec_ids, enc, enc_mask):
        h, bias, ebias = self.shared(dec_ids), None, None
        causal = extended_mask(torch.ones_like(dec_ids), causal=True)
        emask = extended_mask(enc_mask)
        for blk in self.decoder:
            h, bias, ebias = blk(h, causal, bias, enc, emask, ebias)
        h = self.dec_ln(h) * (D_MODEL ** -0.5)
        return h @ self.shared.weight.t()

    def forward(self, input_ids, attention_mask, labels):
        dec_in = shift_tokens_right(labels, PAD, START)
        logits = self.decode(dec_in, self.encode(input_ids, attention_mask), attention_mask)
        return F.cross_entropy(logits.view(-1, VOCAB), labels.view(-1), ignore_index=-100), logits


def collate(features, padding_side="right"):
    ids = pad_sequence([torch.tensor(f["input_ids"]) for f in features], batch_first=True, padding_value=PAD,
                       padding_side=padding_side)
    labels = pad_sequence([torch.tensor(f["labels"]) for f in features], batch_first=True, padding_value=-100)
    return {"input_ids": ids, "attention_mask": (ids != PAD).long(), "labels": labels}


class BeamHypotheses:
    def __init__(self, num_beams, length_penalty):
        self.num_beams, self.length_penalty, self.beams, self.worst_score = num_beams, length_penalty, [], 1e9

    def add(self, hyp, sum_logprobs):
        score = sum_logprobs / (hyp.shape[-1] ** self.length_penalty)
        if len(self.beams) < self.num_beams or score > self.worst_score:
            self.beams.append((score, hyp))
            if len(self.beams) > self.num_beams:
                sorted_scores = sorted([(s, idx) for idx, (s, _) in enumerate(self.beams)])
                del self.beams[sorted_scores[0][1]]
                self.worst_score = sorted_scores[1][0]
            else:
                self.worst_score = min(score, self.worst_score)


def banned_ngram_tokens(seq, n):
    seq = seq.tolist()
    if len(seq) + 1 < n:
        return []
    prefix = tuple(seq[len(seq) - n + 1:])
    return [seq[i + n - 1] for i in range(len(seq) - n + 1) if tuple(seq[i:i + n - 1]) == prefix]


@torch.no_grad()
def beam_generate(model, ids, mask, num_beams=3, max_len=6, no_repeat_ngram_size=2):
    enc = model.encode(ids, mask).repeat_interleave(num_beams, 0)
    emask = mask.repeat_interleave(num_beams, 0)
    seqs = torch.full((num_beams, 1), START)
    scores = torch.tensor([0.0] + [-1e9] * (num_beams - 1))
    hyps = BeamHypotheses(num_beams, 1.0)
    for _ in range(max_len):
        logp = F.log_softmax(model.decode(seqs, enc, emask)[:, -1], dim=-1)
        for b in range(num_beams):
            for t in banned_ngram_tokens(seqs[b], no_repeat_ngram_size):
                logp[b, t] = -float("inf")
        cand = (scores[:, None] + logp).view(-1)
        top, idx = cand.topk(2 * num_beams)
        new_seqs, new_scores = [], []
        for s, i in zip(top.tolist(), idx.tolist()):
            b, t = divmod(i, VOCAB)
            seq = torch.cat([seqs[b], torch.tensor([t])])
            if t == EOS:
                hyps.add(seq, s)
            else:
                new_seqs.append(seq)
                new_scores.append(s)
            if len(new_seqs) == num_beams:
                break
        seqs, scores = torch.stack(new_seqs), torch.tensor(new_scores)
    for s, seq in zip(scores.tolist(), seqs):
        hyps.add(seq, s)
    return sorted(hyps.beams, key=lambda x: -x[0])


rel = torch.arange(-20, 21, 5)
print("bidirectional buckets", relative_position_bucket(rel, True, NUM_BUCKETS, MAX_DIST).tolist())
print("causal buckets", relative_position_bucket(rel, False, NUM_BUCKETS, MAX_DIST).tolist())
print("t5 32/128", relative_position_bucket(torch.tensor([-200, -64, -9, 0, 9, 64, 200])).tolist())

features = [{"input_ids": [5, 6, 7, 8, EOS], "labels": [9, 10, EOS]},
            {"input_ids": [11, 12, EOS], "labels": [13, 14, 15, 16, EOS]},
            {"input_ids": [17, 18, 19, EOS], "labels": [20, EOS]}]
batch = collate(features)
print("input_ids", batch["input_ids"].tolist())
print("labels", batch["labels"].tolist())
print("left padded", collate(features, "left")["input_ids"].tolist())
print("decoder_input_ids", shift_tokens_right(batch["labels"], PAD, START).tolist())

model = T5()
print(model.decoder[0].cross_attn, "has bias", [b.self_attn.has_relative_attention_bias for b in model.decoder])
print("params", sum(p.numel() for p in model.parameters()), "keys with relative bias",
      [k for k in model.state_dict() if "relative" in k])
opt = torch.optim.Adafactor(model.parameters(), lr=0.05)
warmup, total = 2, 8
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: s / max(1, warmup) if s < warmup else max(0.0, (total - s) / max(1, total - warmup)))
for step in range(6):
    loss, logits = model(**batch)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print(f"step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.4f}")
state = opt.state[model.encoder[0].wi.weight]
print("adafactor state", sorted(state), tuple(state["row_var"].shape), tuple(state["col_var"].shape))
print("vector param state", sorted(opt.state[model.enc_ln.weight]))

model.eval()
for score, seq in beam_generate(model, batch["input_ids"][:1], batch["attention_mask"][:1]):
    print(f"beam {score:.4f} {seq.tolist()}")
print("banned", banned_ngram_tokens(torch.tensor([3, 4, 5, 3]), 2), banned_ngram_tokens(torch.tensor([3]), 3))
