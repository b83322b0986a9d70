"""'NLP From Scratch: Translation with a Sequence to Sequence Network and Attention': the Lang vocabulary class,
unicodeToAscii/normalizeString, index tensors with EOS, EncoderRNN (Embedding + GRU batch_first), BahdanauAttention
(Wa, Ua, Va with bmm), AttnDecoderRNN with teacher forcing and greedy decoding (topk, squeeze, detach), NLLLoss over
flattened logits, a few Adam steps, and the attention maps' shapes; weights set from numpy."""

# ruff: noqa: UP008, UP010  (the tutorial's own idioms, kept as written)

from __future__ import unicode_literals, print_function, division
import re
import unicodedata

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import TensorDataset, DataLoader, RandomSampler

device = torch.device("cpu")
SOS_token = 0
EOS_token = 1
MAX_LENGTH = 6
rng = np.random.default_rng(2)


class Lang:
    def __init__(self, name):
        self.name = name
        self.word2index = {}
        self.word2count = {}
        self.index2word = {0: "SOS", 1: "EOS"}
        self.n_words = 2

    def addSentence(self, sentence):
        for word in sentence.split(" "):
            self.addWord(word)

    def addWord(self, word):
        if word not in self.word2index:
            self.word2index[word] = self.n_words
            self.word2count[word] = 1
            self.index2word[self.n_words] = word
            self.n_words += 1
        else:
            self.word2count[word] += 1


def unicodeToAscii(s):
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")


def normalizeString(s):
    s = unicodeToAscii(s.lower().strip())
    s = re.sub(r"([.!?])", r" \1", s)
    s = re.sub(r"[^a-zA-Z!?]+", r" ", s)
    return s.strip()


raw = [("Je suis froid.", "I am cold."), ("Il est très grand!", "He is very tall!"),
       ("Elle est là.", "She is here."), ("Nous sommes prêts?", "We are ready?")]
pairs = [[normalizeString(a), normalizeString(b)] for a, b in raw]
print(pairs[1])
input_lang, output_lang = Lang("fra"), Lang("eng")
for p in pairs:
    input_lang.addSentence(p[0])
    output_lang.addSentence(p[1])
print(input_lang.name, input_lang.n_words, output_lang.name, output_lang.n_words, output_lang.word2count["is"])


def indexesFromSentence(lang, sentence):
    return [lang.word2index[word] for word in sentence.split(" ")]


def tensorFromSentence(lang, sentence):
    indexes = indexesFromSentence(lang, sentence)
    indexes.append(EOS_token)
    return torch.tensor(indexes, dtype=torch.long, device=device).view(1, -1)


print(tensorFromSentence(input_lang, pairs[0][0]))
n = len(pairs)
input_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
target_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
for idx, (inp, tgt) in enumerate(pairs):
    inp_ids = indexesFromSentence(input_lang, inp) + [EOS_token]
    tgt_ids = indexesFromSentence(output_lang, tgt) + [EOS_token]
    input_ids[idx, :len(inp_ids)] = inp_ids
    target_ids[idx, :len(tgt_ids)] = tgt_ids
train_data = TensorDataset(torch.LongTensor(input_ids).to(device), torch.LongTensor(target_ids).to(device))
train_dataloader = DataLoader(train_data, sampler=RandomSampler(train_data), batch_size=2)
print(len(train_dataloader), train_data[0][0].dtype, train_data.tensors[1].shape)


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        output, hidden = self.gru(embedded)
        return output, hidden


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BahdanauAttention, self).__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1):
        super(AttnDecoderRNN, self).__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        attentions = []
        for i in range(MAX_LENGTH):
            decoder_output, decoder_hidden, attn_weights = self.forward_step(
                decoder_input, decoder_hidden, encoder_outputs)
            decoder_outputs.append(decoder_output)
            attentions.append(attn_weights)
            if target_tensor is not None:
                decoder_input = target_tensor[:, i].unsqueeze(1)  # Teacher forcing
            else:
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
        attentions = torch.cat(attentions, dim=1)
        return decoder_outputs, decoder_hidden, attentions

    def forward_step(self, input, hidden, encoder_outputs):
        embedded = self.dropout(self.embedding(input))
        query = hidden.permute(1, 0, 2)
        context, attn_weights = self.attention(query, encoder_outputs)
        input_gru = torch.cat((embedded, context), dim=2)
        output, hidden = self.gru(input_gru, hidden)
        output = self.out(output)
        return output, hidden, attn_weights


def init(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))


hidden_size = 8
# dropout off: its mask depends on the RNG
encoder = EncoderRNN(input_lang.n_words, hidden_size, dropout_p=0.0).to(device)
decoder = AttnDecoderRNN(hidden_size, output_lang.n_words, dropout_p=0.0).to(device)
init(encoder)
init(decoder)
print(decoder.attention)
print([(k, tuple(v.shape)) for k, v in decoder.gru.state_dict().items()])

encoder_optimizer = optim.Adam(encoder.parameters(), lr=0.01)
decoder_optimizer = optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss()
input_tensor, target_tensor = train_data.tensors
for epoch in range(1, 6):
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    encoder_outputs, encoder_hidden = encoder(input_tensor)
    decoder_outputs, _, _ = decoder(encoder_outputs, encoder_hidden, target_tensor)
    loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    print("epoch", epoch, round(loss.item(), 4))

encoder.eval()
decoder.eval()
with torch.no_grad():
    input_t = tensorFromSentence(input_lang, pairs[2][0])
    encoder_outputs, encoder_hidden = encoder(input_t)
    decoder_outputs, decoder_hidden, decoder_attn = decoder(encoder_outputs, encoder_hidden)
    _, topi = decoder_outputs.topk(1)
    decoded_ids = topi.squeeze()
print(encoder_outputs.shape, encoder_hidden.shape, decoder_outputs.shape, decoder_attn.shape)
print("attn rows sum to 1", torch.allclose(decoder_attn.sum(-1), torch.ones(1, MAX_LENGTH)))
print("attn", np.round(decoder_attn[0, 0].double().numpy(), 4).tolist())
decoded_words = []
for idx in decoded_ids:
    if idx.item() == EOS_token:
        decoded_words.append("<EOS>")
        break
    decoded_words.append(output_lang.index2word[idx.item()])
print(decoded_ids.tolist(), decoded_words)
print("logprob rows", np.round(decoder_outputs[0, :2].exp().sum(-1).double().numpy(), 4).tolist())
for batch in train_dataloader:
    print("batch", [tuple(t.shape) for t in batch], batch[0].dtype)
    break
