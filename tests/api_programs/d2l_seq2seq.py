"""d2l.ai chapter 10: a toy English-French pipeline (tokenize, truncate/pad, valid lengths), init_seq2seq over a
GRU's _flat_weights_names, a Seq2SeqEncoder/Decoder (nn.Embedding fed int32 indices, context repeated and
concatenated, swapaxes), sequence_mask with boolean-mask assignment, MaskedSoftmaxCELoss subclassing
CrossEntropyLoss, training with gradient clipping, greedy prediction and BLEU; deep and bidirectional GRUs."""

import collections
import math

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(10)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


raw = "go .\tva !\nhi .\tsalut !\nrun !\tcours !\nwho ?\tqui ?\nwow !\tça alors !\nhelp !\tà l'aide !\n"
src, tgt = [], []
for line in raw.strip().split("\n"):
    parts = line.split("\t")
    src.append(parts[0].split(" ") + ["<eos>"])
    tgt.append(parts[1].split(" ") + ["<eos>"])
print(src[:2], tgt[-1])


class Vocab:
    def __init__(self, tokens, reserved_tokens=()):
        counter = collections.Counter(t for line in tokens for t in line)
        self.idx_to_token = sorted(set(["<unk>", *reserved_tokens, *counter]))
        self.token_to_idx = {t: i for i, t in enumerate(self.idx_to_token)}

    def __len__(self):
        return len(self.idx_to_token)

    def __getitem__(self, tokens):
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, self.token_to_idx["<unk>"])
        return [self[t] for t in tokens]


num_steps = 5
src_vocab = Vocab(src, ["<pad>", "<bos>"])
tgt_vocab = Vocab(tgt, ["<pad>", "<bos>"])


def build_array(sentences, vocab, is_tgt=False):
    pad_or_trim = lambda seq, t: seq[:t] if len(seq) > t else seq + ["<pad>"] * (t - len(seq))
    sentences = [pad_or_trim(s, num_steps) for s in sentences]
    if is_tgt:
        sentences = [["<bos>"] + s for s in sentences]
    array = torch.tensor([vocab[s] for s in sentences])
    valid_len = (array != vocab["<pad>"]).type(torch.int32).sum(1)
    return array, valid_len


src_array, src_valid_len = build_array(src, src_vocab)
tgt_array, _ = build_array(tgt, tgt_vocab, True)
dec_input, label = tgt_array[:, :-1], tgt_array[:, 1:]
print(len(src_vocab), len(tgt_vocab), src_array.shape, src_array.dtype, src_valid_len, src_valid_len.dtype)
print(dec_input[0], label[0])


def init_seq2seq(module):
    if type(module) is nn.Linear:
        nn.init.xavier_uniform_(module.weight)
    if type(module) is nn.GRU:
        for param in module._flat_weights_names:
            if "weight" in param:
                nn.init.xavier_uniform_(module._parameters[param])


class Seq2SeqEncoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)
        self.apply(init_seq2seq)

    def forward(self, X, *args):
        embs = self.embedding(X.t().type(torch.int64))
        outputs, state = self.rnn(embs)
        return outputs, state


class Seq2SeqDecoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.LazyLinear(vocab_size)
        self.apply(init_seq2seq)

    def init_state(self, enc_all_outputs, *args):
        return enc_all_outputs

    def forward(self, X, state):
        embs = self.embedding(X.t().type(torch.int32))
        enc_output, hidden_state = state
        context = enc_output[-1]
        context = context.repeat(embs.shape[0], 1, 1)
        embs_and_context = torch.cat((embs, context), -1)
        outputs, hidden_state = self.rnn(embs_and_context, hidden_state)
        outputs = self.dense(outputs).swapaxes(0, 1)
        return outputs, [enc_output, hidden_state]


def set_all(module, std=0.3):
    with torch.no_grad():
        for _, p in sorted(module.named_parameters()):
            p.copy_(torch.from_numpy((rng.standard_normal(tuple(p.shape)) * std).astype(np.float32)))


encoder = Seq2SeqEncoder(len(src_vocab), 8, 16, 2)
decoder = Seq2SeqDecoder(len(tgt_vocab), 8, 16, 2)
print(encoder.rnn._flat_weights_names[:4], encoder.rnn)
enc_outputs, enc_state = encoder(src_array)
print(enc_outputs.shape, enc_state.shape)
state = decoder.init_state(encoder(src_array))
dec_outputs, state = decoder(dec_input, state)
print(dec_outputs.shape, state[1].shape, decoder.dense)
set_all(encoder)
set_all(decoder)


def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


X = torch.tensor([[1, 2, 3], [4, 5, 6]])
print(sequence_mask(X, torch.tensor([1, 2])))
X = torch.ones(2, 3, 4)
print(sequence_mask(X, torch.tensor([1, 2]), value=-1)[1])


class MaskedSoftmaxCELoss(nn.CrossEntropyLoss):
    def forward(self, pred, label, valid_len):
        weights = torch.ones_like(label)
        weights = sequence_mask(weights, valid_len)
        self.reduction = "none"
        unweighted_loss = super().forward(pred.permute(0, 2, 1), label)
        weighted_loss = (unweighted_loss * weights).mean(dim=1)
        return weighted_loss


loss = MaskedSoftmaxCELoss()
print(loss(torch.ones(3, 4, 10), torch.ones((3, 4), dtype=torch.long), torch.tensor([4, 2, 0])), loss)


def grad_clipping(params, theta):
    norm = torch.sqrt(sum(torch.sum(p.grad**2) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


params = list(encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=0.02)
tgt_valid_len = (label != tgt_vocab["<pad>"]).type(torch.int32).sum(1)
for epoch in range(20):
    optimizer.zero_grad()
    Y_hat, _ = decoder(dec_input, decoder.init_state(encoder(src_array)))
    l = loss(Y_hat, label, tgt_valid_len)
    l.sum().backward()
    norm = grad_clipping(params, 1)
    num_tokens = tgt_valid_len.sum()
    optimizer.step()
    if epoch % 5 == 4:
        print(f"epoch {epoch + 1} loss {float(l.sum() / num_tokens):.4f} norm {float(norm):.3f}")


def predict(src_sentence):
    src_tokens = src_vocab[src_sentence.lower().split(" ")] + [src_vocab["<eos>"]]
    src_tokens = src_tokens[:num_steps] + [src_vocab["<pad>"]] * (num_steps - len(src_tokens))
    enc_X = torch.unsqueeze(torch.tensor(src_tokens, dtype=torch.long), dim=0)
    dec_state = decoder.init_state(encoder(enc_X))
    dec_X = torch.unsqueeze(torch.tensor([tgt_vocab["<bos>"]], dtype=torch.long), dim=0)
    output_seq = []
    for _ in range(num_steps):
        Y, dec_state = decoder(dec_X, dec_state)
        dec_X = Y.argmax(dim=2)
        pred = dec_X.squeeze(dim=0).type(torch.int32).item()
        if pred == tgt_vocab["<eos>"]:
            break
        output_seq.append(pred)
    return " ".join(tgt_vocab.idx_to_token[i] for i in output_seq)


def bleu(pred_seq, label_seq, k):
    pred_tokens, label_tokens = pred_seq.split(" "), label_seq.split(" ")
    len_pred, len_label = len(pred_tokens), len(label_tokens)
    score = math.exp(min(0, 1 - len_label / len_pred))
    for n in range(1, min(k, len_pred) + 1):
        num_matches, label_subs = 0, collections.defaultdict(int)
        for i in range(len_label - n + 1):
            label_subs[" ".join(label_tokens[i : i + n])] += 1
        for i in range(len_pred - n + 1):
            if label_subs[" ".join(pred_tokens[i : i + n])] > 0:
                num_matches += 1
                label_subs[" ".join(pred_tokens[i : i + n])] -= 1
        score *= math.pow(num_matches / (len_pred - n + 1), math.pow(0.5, n))
    return score


encoder.eval()
decoder.eval()
with torch.no_grad():
    for eng, fra in [("go .", "va !"), ("who ?", "qui ?"), ("help !", "à l'aide !")]:
        translation = predict(eng)
        print(f"{eng} => {translation}, bleu {bleu(translation, fra, k=2):.3f}")

# deep and bidirectional GRUs
deep = nn.GRU(4, 6, num_layers=3, dropout=0.2)
bi = nn.GRU(4, 6, bidirectional=True)
set_all(deep)
set_all(bi)
seq = torch.from_numpy(rng.standard_normal((5, 2, 4)).astype(np.float32))
deep.eval()
o, h = deep(seq)
print(deep, o.shape, h.shape, torch.equal(o[-1], h[-1]), r(h[0], 4))
o, h = bi(seq)
print(bi, o.shape, h.shape, torch.equal(o[-1, :, :6], h[0]), torch.equal(o[0, :, 6:], h[1]))
emb = nn.Embedding(5, 3, padding_idx=0)
print(emb, emb.weight[0], emb(torch.tensor([[0, 4]], dtype=torch.int32)).shape)
try:
    emb(torch.tensor([1.0, 2.0]))
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
try:
    emb(torch.tensor([5]))
except IndexError as e:
    print("IndexError:", e)
