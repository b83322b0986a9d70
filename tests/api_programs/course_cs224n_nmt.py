"""CS224n assignments 4-5: an LSTM encoder-decoder NMT model with multiplicative attention, packed padded source
batches (sorted and unsorted), enc_masks filled with -inf, teacher-forced target log-likelihoods with pad masks,
a tiny beam search, and the character CNN with highway layer; weights from numpy, printed values and errors."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

rng = np.random.default_rng(4)
PAD, SOS, EOS = 0, 1, 2


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def init_(module, scale=0.3):
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy((scale * rng.standard_normal(tuple(p.shape))).astype(np.float32)))


class NMT(nn.Module):
    def __init__(self, embed_size, hidden_size, src_vocab, tgt_vocab):
        super().__init__()
        self.source = nn.Embedding(src_vocab, embed_size, padding_idx=PAD)
        self.target = nn.Embedding(tgt_vocab, embed_size, padding_idx=PAD)
        self.encoder = nn.LSTM(embed_size, hidden_size, bidirectional=True)
        self.decoder = nn.LSTMCell(embed_size + hidden_size, hidden_size)
        self.h_projection = nn.Linear(2 * hidden_size, hidden_size, bias=False)
        self.c_projection = nn.Linear(2 * hidden_size, hidden_size, bias=False)
        self.att_projection = nn.Linear(2 * hidden_size, hidden_size, bias=False)
        self.combined_output_projection = nn.Linear(3 * hidden_size, hidden_size, bias=False)
        self.target_vocab_projection = nn.Linear(hidden_size, tgt_vocab, bias=False)
        self.dropout = nn.Dropout(0.3)
        self.hidden_size = hidden_size

    def encode(self, source_padded, source_lengths):
        X = self.source(source_padded)
        packed = pack_padded_sequence(X, source_lengths)
        enc_hiddens, (last_hidden, last_cell) = self.encoder(packed)
        enc_hiddens, lens = pad_packed_sequence(enc_hiddens, batch_first=True)
        init_h = self.h_projection(torch.cat((last_hidden[0], last_hidden[1]), dim=1))
        init_c = self.c_projection(torch.cat((last_cell[0], last_cell[1]), dim=1))
        return enc_hiddens, (init_h, init_c), lens

    def step(self, Ybar_t, dec_state, enc_hiddens, enc_hiddens_proj, enc_masks):
        dec_state = self.decoder(Ybar_t, dec_state)
        dec_hidden, _ = dec_state
        e_t = torch.bmm(enc_hiddens_proj, dec_hidden.unsqueeze(2)).squeeze(2)
        if enc_masks is not None:
            e_t.data.masked_fill_(enc_masks.bool(), -float("inf"))
        alpha_t = F.softmax(e_t, dim=1)
        a_t = torch.bmm(alpha_t.unsqueeze(1), enc_hiddens).squeeze(1)
        V_t = self.combined_output_projection(torch.cat((a_t, dec_hidden), dim=1))
        return dec_state, self.dropout(torch.tanh(V_t)), alpha_t

    def forward(self, source_padded, source_lengths, target_padded):
        enc_hiddens, dec_state, _ = self.encode(source_padded, source_lengths)
        enc_masks = self.generate_sent_masks(enc_hiddens, source_lengths)
        enc_proj = self.att_projection(enc_hiddens)
        o_prev = torch.zeros(enc_hiddens.size(0), self.hidden_size)
        combined = []
        for Y_t in torch.split(self.target(target_padded[:-1]), 1, dim=0):
            dec_state, o_t, _ = self.step(torch.cat((Y_t.squeeze(0), o_prev), dim=1), dec_state, enc_hiddens,
                                          enc_proj, enc_masks)
            combined.append(o_t)
            o_prev = o_t
        P = F.log_softmax(self.target_vocab_projection(torch.stack(combined, dim=0)), dim=-1)
        target_masks = (target_padded != PAD).float()
        gold = torch.gather(P, index=target_padded[1:].unsqueeze(-1), dim=-1).squeeze(-1) * target_masks[1:]
        return gold.sum(dim=0)

    @staticmethod
    def generate_sent_masks(enc_hiddens, source_lengths):
        enc_masks = torch.zeros(enc_hiddens.size(0), enc_hiddens.size(1), dtype=torch.float)
        for e_id, src_len in enumerate(source_lengths):
            enc_masks[e_id, src_len:] = 1
        return enc_masks


src = [torch.tensor(rng.integers(3, 9, n)) for n in (5, 4, 2)]
tgt = [torch.tensor([SOS] + rng.integers(3, 10, n).tolist() + [EOS]) for n in (3, 5, 2)]
src_padded = pad_sequence(src, padding_value=PAD)
tgt_padded = pad_sequence(tgt)
lengths = [len(s) for s in src]
print("padded", tuple(src_padded.shape), src_padded.dtype, src_padded[:, 2].tolist(), tuple(tgt_padded.shape))
print("batch_first", pad_sequence(src, batch_first=True, padding_value=-1)[2].tolist())

model = NMT(4, 5, 9, 10)
init_(model)
with torch.no_grad():
    model.source.weight[PAD].zero_()
    model.target.weight[PAD].zero_()
model.eval()
packed = pack_padded_sequence(model.source(src_padded), lengths)
print("packed", type(packed).__name__, tuple(packed.data.shape), packed.batch_sizes.tolist(), packed.sorted_indices,
      packed.batch_sizes.dtype)
enc, (h0, c0), lens = model.encode(src_padded, lengths)
print("encoded", tuple(enc.shape), lens.tolist(), lens.dtype, tuple(h0.shape), r(enc[2, 2:], 4), r(h0))
scores = model(src_padded, lengths, tgt_padded)
loss = -scores.sum() / len(src)
print("scores", r(scores), round(loss.item(), 4), scores.grad_fn.name())
model.train()
loss_t = -model(src_padded, lengths, tgt_padded).sum()
loss_t.backward()
print("pad grad zero", model.source.weight.grad[PAD].abs().sum().item(), model.target.weight.grad[PAD].tolist())
total = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
print("clip", total.dtype, total.ndim, bool(total > 0))
model.eval()
words = sum(len(t) - 1 for t in tgt)
print("ppl", round(float(np.exp(-scores.sum().item() / words)), 4))

# Unsorted batches: enforce_sorted=False keeps the permutation; the sorted default refuses them.
un = [src[2], src[0], src[1]]
un_padded = pad_sequence(un, batch_first=True)
pk = pack_padded_sequence(un_padded, torch.tensor([2, 5, 4]), batch_first=True, enforce_sorted=False)
print("unsorted", pk.sorted_indices.tolist(), pk.unsorted_indices.tolist(), pk.batch_sizes.tolist())
back, back_lens = pad_packed_sequence(pk, batch_first=True, padding_value=-7, total_length=6)
print("roundtrip", tuple(back.shape), back_lens.tolist(), back[0].tolist())
for name, fn in (
    ("unsorted default", lambda: pack_padded_sequence(un_padded, [2, 5, 4], batch_first=True)),
    ("zero length", lambda: pack_padded_sequence(src_padded, [5, 4, 0])),
    ("total_length short", lambda: pad_packed_sequence(pk, batch_first=True, total_length=3)),
    ("lengths per token", lambda: pack_padded_sequence(un_padded, [2, 5, 4, 1, 1], batch_first=True)),
    ("lengths 2-D", lambda: pack_padded_sequence(src_padded, torch.tensor([lengths]))),
    ("padding_side", lambda: pad_sequence(src, padding_side="end")),
    ("GRU proj_size", lambda: nn.GRU(4, 5, proj_size=2)),
):
    try:
        fn()
    except (RuntimeError, ValueError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


# Beam search with topk over the flattened hypothesis scores.
def beam_search(model, src_sent, beam_size=3, max_len=4):
    enc, dec_state, _ = model.encode(src_sent.unsqueeze(1), [len(src_sent)])
    enc_proj = model.att_projection(enc)
    hyps, hyp_scores = [[SOS]], torch.zeros(1)
    o_prev = torch.zeros(1, model.hidden_size)
    for _ in range(max_len):
        n = len(hyps)
        y_t = model.target(torch.tensor([h[-1] for h in hyps]))
        dec_state, o_t, _ = model.step(torch.cat([y_t, o_prev], -1), dec_state, enc.expand(n, -1, -1),
                                       enc_proj.expand(n, -1, -1), None)
        log_p = F.log_softmax(model.target_vocab_projection(o_t), dim=-1)
        cont = (hyp_scores.unsqueeze(1).expand_as(log_p) + log_p).view(-1)
        top_scores, top_pos = torch.topk(cont, k=beam_size)
        prev_ids = torch.div(top_pos, log_p.size(1), rounding_mode="floor")
        word_ids = top_pos % log_p.size(1)
        hyps = [hyps[p] + [w] for p, w in zip(prev_ids.tolist(), word_ids.tolist())]
        hyp_scores = top_scores
        dec_state = (dec_state[0][prev_ids], dec_state[1][prev_ids])
        o_prev = o_t[prev_ids]
    return hyps, hyp_scores


with torch.no_grad():
    hyps, hs = beam_search(model, src[0])
print("beam", hyps, r(hs, 3), hs.is_contiguous())


class CharCNN(nn.Module):
    def __init__(self, char_embed, word_embed, kernel_size=3, max_word_len=6):
        super().__init__()
        self.conv = nn.Conv1d(char_embed, word_embed, kernel_size, padding=1)
        self.pool = nn.MaxPool1d(max_word_len)
        self.proj = nn.Linear(word_embed, word_embed)
        self.gate = nn.Linear(word_embed, word_embed)

    def forward(self, x):  # (batch, char_embed, max_word_len)
        x_conv = self.pool(F.relu(self.conv(x))).squeeze(-1)
        g = torch.sigmoid(self.gate(x_conv))
        return g * F.relu(self.proj(x_conv)) + (1 - g) * x_conv


char_emb = nn.Embedding(12, 3, padding_idx=0)
cnn = CharCNN(3, 4)
init_(char_emb)
init_(cnn)
chars = torch.from_numpy(rng.integers(0, 12, (2, 3, 6)))  # (sentence, batch, word length)
x = char_emb(chars).view(-1, 6, 3).permute(0, 2, 1)
out = cnn(x).view(2, 3, 4)
print("char cnn", tuple(x.shape), tuple(out.shape), r(out), x.is_contiguous())
print("max over time", torch.equal(cnn.pool(F.relu(cnn.conv(x))).squeeze(-1), F.relu(cnn.conv(x)).max(-1)[0]))
print(cnn)
proj = nn.LSTM(3, 6, proj_size=2, bidirectional=True, batch_first=True)
print(proj, [tuple(p.shape) for n, p in proj.named_parameters() if "reverse" not in n])
print("proj out", tuple(proj(x.transpose(1, 2))[0].shape), tuple(proj(x.transpose(1, 2))[1][1].shape))
try:
    cnn.conv(char_emb(chars).view(-1, 6, 3))
except RuntimeError as e:
    print("forgot permute", type(e).__name__, str(e).splitlines()[0])
