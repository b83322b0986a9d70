"""Batched generation bookkeeping as HF generate() does it: left padding with position_ids from the attention mask,
per-row EOS tracking with unfinished_sequences, pad-after-EOS, no_repeat_ngram via unfold, bad-words masking with
torch.isin, logits processor chains, beam search with length penalty (topk over beams x vocab, index math with //
and %), and stop-string checks over decoded ids."""

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
V, PAD, EOS = 12, 0, 11


def fake_logits(input_ids):
    """A deterministic 'model': logits depend on the last token and the length."""
    last = input_ids[:, -1:].float()
    t = input_ids.shape[1]
    grid = torch.arange(V, dtype=torch.float32)[None]
    return torch.cos(grid * 0.7 + last * 1.3 + t * 0.4) * 3 + (grid == EOS).float() * (t - 6)


prompts = [[5, 3, 8], [2, 9], [7, 7, 1, 4]]
maxlen = max(map(len, prompts))
input_ids = torch.tensor([[PAD] * (maxlen - len(p)) + p for p in prompts])
attention_mask = (torch.arange(maxlen)[None] >= torch.tensor([maxlen - len(p) for p in prompts])[:, None]).long()
position_ids = attention_mask.long().cumsum(-1) - 1
position_ids.masked_fill_(attention_mask == 0, 1)
print("input_ids:\n", input_ids, "\nposition_ids:\n", position_ids)


def no_repeat_ngram_mask(ids, n):
    batch, cur = ids.shape
    banned = torch.zeros(batch, V, dtype=torch.bool)
    if cur + 1 < n:
        return banned
    ngrams = ids.unfold(1, n, 1)  # (batch, cur - n + 1, n)
    prefix = ids[:, cur - n + 1:]
    hit = (ngrams[:, :, :-1] == prefix[:, None, :]).all(-1)
    for b in range(batch):
        banned[b, ngrams[b, hit[b], -1]] = True
    return banned


bad_words = torch.tensor([3, 6])


def process(ids, logits, temperature=0.7):
    logits = logits.masked_fill(no_repeat_ngram_mask(ids, 2), float("-inf"))
    logits = logits.masked_fill(torch.isin(torch.arange(V), bad_words)[None], float("-inf"))
    if ids.shape[1] < 5:  # min_new_tokens style: no EOS too early
        logits[:, EOS] = float("-inf")
    return logits / temperature


unfinished = torch.ones(input_ids.shape[0], dtype=torch.long)
ids, mask = input_ids.clone(), attention_mask.clone()
for step in range(8):
    scores = process(ids, fake_logits(ids))
    next_tokens = scores.argmax(-1)
    next_tokens = next_tokens * unfinished + PAD * (1 - unfinished)
    ids = torch.cat([ids, next_tokens[:, None]], dim=-1)
    mask = torch.cat([mask, mask.new_ones((mask.shape[0], 1))], dim=-1)
    unfinished = unfinished & ~(next_tokens == EOS)
    if unfinished.max() == 0:
        break
print("steps:", step + 1, "generated:\n", ids[:, maxlen:])
print("unfinished:", unfinished.tolist(), "mask sums:", mask.sum(-1).tolist())
print("no bad words:", not torch.isin(ids[:, maxlen:], bad_words).any().item())
bigrams = ids.unfold(1, 2, 1)
dups = [(bigrams[b][:, None] == bigrams[b][None]).all(-1).triu(1).any().item() for b in range(3)]
print("repeated bigrams per row:", dups)
eos_pos = torch.where((ids == EOS).any(-1), (ids == EOS).int().argmax(-1), torch.full((3,), -1))
print("first EOS position:", eos_pos.tolist())

# beam search with length penalty
num_beams, length_penalty, max_new = 3, 1.0, 4
beam_ids = torch.tensor([[4, 2]]).repeat(num_beams, 1)
beam_scores = torch.tensor([0.0, -1e9, -1e9])
finished = []
for step in range(max_new):
    logp = F.log_softmax(fake_logits(beam_ids), dim=-1)
    cand = (beam_scores[:, None] + logp).view(-1)
    top_scores, top_idx = torch.topk(cand, 2 * num_beams)
    beam_idx = torch.div(top_idx, V, rounding_mode="floor")
    token_idx = top_idx % V
    new_ids, new_scores = [], []
    for s, bi, ti in zip(top_scores.tolist(), beam_idx.tolist(), token_idx.tolist()):
        seq = torch.cat([beam_ids[bi], torch.tensor([ti])])
        if ti == EOS:
            finished.append((s / (seq.numel() ** length_penalty), seq.tolist()))
        else:
            new_ids.append(seq)
            new_scores.append(s)
        if len(new_ids) == num_beams:
            break
    beam_ids = torch.stack(new_ids)
    beam_scores = torch.tensor(new_scores)
    print(f"step {step}: beams {beam_ids[:, 2:].tolist()} scores {[round(x, 4) for x in new_scores]}")
for s, seq in zip(beam_scores.tolist(), beam_ids.tolist()):
    finished.append((s / (len(seq) ** length_penalty), seq))
finished.sort(key=lambda t: -t[0])
print("best hypotheses:", [(round(s, 4), seq) for s, seq in finished[:3]])
print("floor div vs //:", torch.equal(torch.div(top_idx, V, rounding_mode="floor"), top_idx // V))

# stop strings over token text
vocab_text = {i: c for i, c in enumerate("_abcdefghij.")}
decoded = ["".join(vocab_text[t] for t in row if t != PAD) for row in ids.tolist()]
print("decoded:", decoded)
print("stop on 'h':", [("h" in s[len(p):]) for s, p in zip(decoded, prompts)])

# sampling bookkeeping that is seed-independent: shapes, support and reproducibility
g = torch.Generator().manual_seed(7)
probs = F.softmax(process(ids, fake_logits(ids)), -1)
draw = torch.multinomial(probs, 1, generator=g).squeeze(1)
g.manual_seed(7)
print("support respected:", bool((probs.gather(1, draw[:, None]) > 0).all()),
      "reproducible:", torch.equal(draw, torch.multinomial(probs, 1, generator=g).squeeze(1)))
print("probs rows:", probs.sum(-1), "zeros for banned:", probs[:, bad_words].abs().sum().item())
