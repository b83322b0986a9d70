"""BERT-style masked-language-model data preparation and loss: special-token masks, seeded bernoulli selection
of 15% of positions, the 80/10/10 replacement with masked_fill/where/randint, labels set to -100 elsewhere,
whole-word masking from word ids, span masking with a geometric length, masked_scatter and masked_select round
trips, and the MLM loss and accuracy over the selected positions only."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

PAD, CLS, SEP, MASK, UNK = 0, 1, 2, 3, 4
V = 30
specials = torch.tensor([PAD, CLS, SEP, MASK, UNK])

sents = [[7, 12, 9, 22, 15, 8], [11, 5, 29, 6], [18, 17, 16, 25, 13, 10, 27, 21]]
L = max(len(s) for s in sents) + 2
input_ids = torch.full((len(sents), L), PAD)
for i, s in enumerate(sents):
    input_ids[i, : len(s) + 2] = torch.tensor([CLS] + s + [SEP])
attention_mask = input_ids.ne(PAD).long()
print(input_ids)
print(attention_mask.sum(1).tolist())

special_mask = torch.isin(input_ids, specials)
print("special", special_mask.int().tolist())


def mask_tokens(ids, prob=0.15):
    labels = ids.clone()
    p = torch.full(ids.shape, prob)
    p.masked_fill_(special_mask, 0.0)
    chosen = torch.bernoulli(p).bool()
    labels[~chosen] = -100
    replace = torch.bernoulli(torch.full(ids.shape, 0.8)).bool() & chosen
    out = ids.masked_fill(replace, MASK)
    rand = torch.bernoulli(torch.full(ids.shape, 0.5)).bool() & chosen & ~replace
    words = torch.randint(len(specials), V, ids.shape)
    out = torch.where(rand, words, out)
    return out, labels, chosen, replace, rand


masked, labels, chosen, replace, rand = mask_tokens(input_ids, prob=0.3)
print("chosen", chosen.int().tolist())
kept = chosen & ~replace & ~rand
print("replaced by [MASK]", int(replace.sum()), "random", int(rand.sum()), "kept", int(kept.sum()))
print(masked)
print(labels)

# whole-word masking: word_ids maps sub-tokens to words; mask every piece of a chosen word
word_ids = torch.tensor([[-1, 0, 0, 1, 2, 2, 3, -1, -1, -1], [-1, 0, 1, 1, 2, -1, -1, -1, -1, -1],
                         [-1, 0, 1, 2, 2, 2, 3, 4, 5, -1]])
n_words = word_ids.max(1).values + 1
print("words per row", n_words.tolist())
torch.manual_seed(1)
word_pick = torch.rand(3, int(n_words.max())) < 0.3
word_pick &= torch.arange(int(n_words.max()))[None] < n_words[:, None]
print("picked words", word_pick.int().tolist())
wwm = torch.zeros_like(input_ids, dtype=torch.bool)
valid = word_ids.ge(0)
wwm[valid] = word_pick.gather(1, word_ids.clamp(min=0))[valid]
print("whole-word mask", wwm.int().tolist())

# span masking (SpanBERT): geometric span lengths clipped to 3
torch.manual_seed(2)
geo = torch.distributions.Geometric(probs=torch.tensor(0.4))
span_len = geo.sample((4,)).long().add(1).clamp(max=3)
starts = torch.randint(1, 6, (4,))
print("spans", list(zip(starts.tolist(), span_len.tolist())))
span_mask = torch.zeros(L, dtype=torch.bool)
for s, n in zip(starts.tolist(), span_len.tolist()):
    span_mask[s : s + n] = True
print("span mask", span_mask.int().tolist())

# masked_select / masked_scatter round trip
vals = input_ids.masked_select(chosen)
print("selected ids", vals.tolist())
restored = masked.masked_scatter(chosen, vals)
print("restored equals input", torch.equal(restored, input_ids))
print("masked_scatter float", torch.zeros(2, 3).masked_scatter(torch.tensor([[1, 0, 1], [0, 1, 0]]).bool(),
                                                               torch.arange(1.0, 7.0)))

# an MLM head with tied decoder weights
torch.manual_seed(3)
emb = nn.Embedding(V, 12, padding_idx=PAD)
enc = nn.Sequential(nn.Linear(12, 12), nn.GELU(), nn.LayerNorm(12))
decoder = nn.Linear(12, V)
decoder.weight = emb.weight
h = enc(emb(masked))
logits = decoder(h)
loss = F.cross_entropy(logits.view(-1, V), labels.view(-1))
print("mlm loss", round(loss.item(), 4), "targets", int(labels.ne(-100).sum()))
sel = labels.ne(-100)
acc = logits.argmax(-1)[sel].eq(labels[sel]).float().mean()
print("masked acc", round(acc.item(), 4))
# only masked rows of the logits get gradient
logits.retain_grad()
loss.backward()
rows = logits.grad.abs().sum(-1).gt(0)
print("grad rows == selected", torch.equal(rows, sel))
print("tied grad", emb.weight.grad.shape, round(emb.weight.grad.norm().item(), 4))

# gather the masked positions first (saves the vocab projection elsewhere)
h_sel = h[sel]
loss2 = F.cross_entropy(decoder(h_sel), labels[sel])
print("gathered loss equal", round(loss2.item(), 4) == round(loss.item(), 4))
pos = sel.nonzero(as_tuple=False)
print("positions", pos.tolist())
print("nonzero tuple", [t.tolist() for t in sel.nonzero(as_tuple=True)])

# attention-mask to additive bias as BERT does it
ext = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
print(ext.shape, ext[1, 0, 0, -3:].tolist())

try:
    input_ids.masked_fill(chosen.int(), MASK)
except Exception as err:
    print(type(err).__name__, err)
try:
    torch.zeros(2, 3).masked_scatter(torch.ones(2, 3, dtype=torch.bool), torch.arange(4.0))
except Exception as err:
    print(type(err).__name__, err)
