"""T5-style seq2seq pieces and an NLP fine-tuning loop: relative position buckets (log/min/full_like/where), the
T5 RMS LayerNorm, scaled_dot_product_attention with is_causal and scale, tokenizer-free collation with
pad_sequence and a DataLoader collate_fn, -100 label padding, gradient accumulation with clip_grad_norm_, a
linear warmup LambdaLR, Embedding.from_pretrained(freeze=True), weight_norm parametrization, and packed LSTMs."""

# ruff: noqa
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
from torch.utils.data import DataLoader, Dataset

rng = np.random.default_rng(2)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
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
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


q = torch.arange(12, dtype=torch.long)[:, None]
k = torch.arange(12, dtype=torch.long)[None, :]
rel = k - q
print("bidir", _relative_position_bucket(rel, num_buckets=8, max_distance=20)[0].tolist())
print("causal", _relative_position_bucket(rel, bidirectional=False, num_buckets=8, max_distance=20)[-1].tolist())
print("wide", _relative_position_bucket(torch.tensor([-300, -40, -9, 0, 3, 17, 90, 500])).tolist())


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        if self.weight.dtype in [torch.float16, torch.bfloat16]:
            hidden_states = hidden_states.to(self.weight.dtype)
        return self.weight * hidden_states


class T5Attention(nn.Module):
    def __init__(self, d_model, n_heads, has_relative_attention_bias, is_decoder, num_buckets=8, max_distance=20):
        super().__init__()
        self.n_heads, self.d_kv = n_heads, d_model // n_heads
        self.is_decoder = is_decoder
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)
        self.num_buckets, self.max_distance = num_buckets, max_distance
        self.has_relative_attention_bias = has_relative_attention_bias
        if has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(num_buckets, n_heads)

    def compute_bias(self, query_length, key_length):
        context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        buckets = _relative_position_bucket(memory_position - context_position, bidirectional=not self.is_decoder,
                                            num_buckets=self.num_buckets, max_distance=self.max_distance)
        values = self.relative_attention_bias(buckets)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, x, kv=None, mask=None, position_bias=None):
        b, n = x.shape[:2]
        kv = x if kv is None else kv
        shape = lambda t: t.view(b, -1, self.n_heads, self.d_kv).transpose(1, 2)
        q, k, v = shape(self.q(x)), shape(self.k(kv)), shape(self.v(kv))
        scores = torch.matmul(q, k.transpose(3, 2))
        if position_bias is None:
            if self.has_relative_attention_bias:
                position_bias = self.compute_bias(n, k.shape[2])
            else:
                position_bias = torch.zeros((1, self.n_heads, n, k.shape[2]), dtype=scores.dtype)
            if mask is not None:
                position_bias = position_bias + mask
        scores += position_bias
        attn = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        out = torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, -1, self.n_heads * self.d_kv)
        return self.o(out), position_bias


att = T5Attention(8, 2, True, False)
with torch.no_grad():
    for p in att.parameters():
        p.copy_(T(*p.shape) * 0.5)
x = T(2, 5, 8)
mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]])
ext = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
out, pb = att(x, mask=ext)
print("t5 attn", tuple(out.shape), tuple(pb.shape), r(out))
print("bias", r(att.compute_bias(3, 3)))
ln = T5LayerNorm(8)
print("t5 ln", r(ln(x)), ln(x.half()).dtype)

# scaled_dot_product_attention against the explicit formula
qh, kh, vh = T(2, 2, 5, 4), T(2, 2, 5, 4), T(2, 2, 5, 4)
o1 = F.scaled_dot_product_attention(qh, kh, vh, is_causal=True, dropout_p=0.0, scale=0.3)
causal = torch.ones(5, 5, dtype=torch.bool).tril()
o2 = torch.softmax((qh @ kh.transpose(-2, -1) * 0.3).masked_fill(~causal, float("-inf")), -1) @ vh
print("sdpa causal", r(o1), torch.allclose(o1, o2, atol=1e-5))
bool_mask = mask[:, None, None, :].bool()
o3 = F.scaled_dot_product_attention(qh, kh, vh, attn_mask=bool_mask)
print("sdpa bool mask", r(o3[1, 0, 0]))
o4 = F.scaled_dot_product_attention(qh, kh, vh, attn_mask=ext)
print("sdpa float mask same", torch.allclose(o3, o4, atol=1e-5))
o5 = F.scaled_dot_product_attention(qh, kh, vh, attn_mask=bool_mask, is_causal=True)
print("sdpa mask and causal", r(o5[1, 0, -1]), torch.allclose(o5, F.scaled_dot_product_attention(
    qh, kh, vh, attn_mask=bool_mask & causal), atol=1e-5))
try:
    F.scaled_dot_product_attention(qh, kh, vh, attn_mask=bool_mask, is_causal=True, dropout_p=0.1)
except RuntimeError as e:
    print("RuntimeError", e)


# tokenizer-free collation
class PairDataset(Dataset):
    def __init__(self, n=10):
        self.items = []
        for i in range(n):
            src = rng.integers(3, 20, size=int(rng.integers(3, 8))).tolist()
            tgt = [t + 1 for t in src[: max(2, len(src) - 2)]]
            self.items.append((src, tgt))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        src, tgt = self.items[i]
        return {"input_ids": torch.tensor(src), "labels": torch.tensor(tgt)}


def collate(batch, pad_id=0):
    input_ids = pad_sequence([b["input_ids"] for b in batch], batch_first=True, padding_value=pad_id)
    labels = pad_sequence([b["labels"] for b in batch], batch_first=True, padding_value=-100)
    attention_mask = (input_ids != pad_id).long()
    lengths = torch.tensor([len(b["input_ids"]) for b in batch])
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels, "lengths": lengths}


ds = PairDataset()
loader = DataLoader(ds, batch_size=4, shuffle=False, collate_fn=collate)
first = next(iter(loader))
print("batch keys", sorted(first.keys()), len(loader))
print("input_ids", first["input_ids"].tolist())
print("labels", first["labels"].tolist())
print("mask sums", first["attention_mask"].sum(1).tolist(), first["lengths"].tolist())
print("pad_sequence seq-first", tuple(pad_sequence([torch.ones(2, 3), torch.ones(4, 3)]).shape))
print("padding_side left", pad_sequence([torch.tensor([1, 2]), torch.tensor([3])], batch_first=True,
                                        padding_side="left").tolist())


# a small encoder-decoder: frozen pretrained embeddings, packed LSTM encoder, weight-normed head
class Seq2Seq(nn.Module):
    def __init__(self, emb, hidden=12, vocab=22):
        super().__init__()
        self.embed = nn.Embedding.from_pretrained(emb, freeze=True, padding_idx=0)
        self.encoder = nn.LSTM(emb.shape[1], hidden, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * hidden, hidden)
        self.decoder = nn.GRU(emb.shape[1], hidden, batch_first=True)
        self.head = torch.nn.utils.parametrizations.weight_norm(nn.Linear(hidden, vocab))

    def forward(self, input_ids, lengths, labels):
        e = self.embed(input_ids)
        packed = pack_padded_sequence(e, lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.encoder(packed)
        out, out_lens = pad_packed_sequence(out, batch_first=True)
        h0 = torch.tanh(self.bridge(torch.cat([h[-2], h[-1]], dim=-1))).unsqueeze(0)
        dec_in = labels.clamp(min=0)
        dec_in = torch.cat([torch.full_like(dec_in[:, :1], 1), dec_in[:, :-1]], dim=1)
        d, _ = self.decoder(self.embed(dec_in), h0)
        return self.head(d), out, out_lens


emb = T(22, 6) * 0.5
model = Seq2Seq(emb)
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.requires_grad:
            p.copy_(T(*p.shape) * 0.3)
print("embed frozen", model.embed.weight.requires_grad, model.embed.padding_idx,
      torch.equal(model.embed.weight, emb))
print("weight_norm names", sorted(n for n, _ in model.head.named_parameters()))
print("head weight", r(model.head.weight), torch.nn.utils.parametrize.is_parametrized(model.head, "weight"))
logits, enc_out, enc_lens = model(first["input_ids"], first["lengths"], first["labels"])
print("enc", tuple(enc_out.shape), enc_lens.tolist(), r(enc_out[1, -1]))
print("logits", tuple(logits.shape), r(logits))

trainable = [p for p in model.parameters() if p.requires_grad]
print("trainable", len(trainable), sum(p.numel() for p in trainable))
optimizer = torch.optim.AdamW(trainable, lr=5e-3, weight_decay=0.01)
num_training_steps, num_warmup_steps = 6, 2


def lr_lambda(current_step):
    if current_step < num_warmup_steps:
        return float(current_step) / float(max(1, num_warmup_steps))
    return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch=-1)
accum = 2
step = 0
model.train()
for epoch in range(2):
    for i, batch in enumerate(loader):
        logits, _, _ = model(batch["input_ids"], batch["lengths"], batch["labels"])
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), batch["labels"].view(-1), ignore_index=-100)
        (loss / accum).backward()
        if (i + 1) % accum == 0 or i + 1 == len(loader):
            norm = torch.nn.utils.clip_grad_norm_(trainable, max_norm=1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            step += 1
            print("update", step, round(loss.item(), 4), round(norm.item(), 4), round(scheduler.get_last_lr()[0], 6))
print("embed untouched", torch.equal(model.embed.weight, emb), model.embed.weight.grad)
print("sched state", sorted(scheduler.state_dict().keys()))
print("original0", tuple(model.head.parametrizations.weight.original0.shape),
      r(model.head.parametrizations.weight.original0))
