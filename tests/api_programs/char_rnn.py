"""The char-RNN tutorials: names as one-hot letter tensors, an nn.RNN classifier trained with NLLLoss and
clip_grad_norm_, topk over categories, a hand-written RNN cell generating names, nn.GRU, torch.multinomial."""

# ruff: noqa: UP008  (the tutorials' own idioms, kept as written)

import math
import string
import time
import unicodedata
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def det(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


allowed_characters = string.ascii_letters + " .,;'" + "_"
n_letters = len(allowed_characters)


def unicodeToAscii(s):
    return "".join(c for c in unicodedata.normalize("NFD", s)
                   if unicodedata.category(c) != "Mn" and c in allowed_characters)


def letterToIndex(letter):
    if letter not in allowed_characters:
        return allowed_characters.find("_")
    return allowed_characters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print("ascii", unicodeToAscii("Ślusàrski"), n_letters)
print("a", lineToTensor("a").shape, int(lineToTensor("a").argmax()))
print("Ahn", lineToTensor("Ahn").size(), lineToTensor("Ahn").nonzero().tolist())

data = {
    "English": ["Smith", "Jones", "Taylor", "Brown"],
    "French": ["Dubois", "Lefevre", "Moreau", "Girard"],
    "Italian": ["Rossi", "Russo", "Ferrari", "Esposito"],
}
all_categories = list(data.keys())
n_categories = len(all_categories)


class NamesDataset(torch.utils.data.Dataset):
    def __init__(self):
        self.items = [(lang, name) for lang in all_categories for name in data[lang]]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        lang, name = self.items[idx]
        label_tensor = torch.tensor([all_categories.index(lang)], dtype=torch.long)
        return label_tensor, lineToTensor(name), lang, name


alldata = NamesDataset()
print("dataset", len(alldata), alldata[5][0], alldata[5][1].shape, alldata[5][2:])


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(CharRNN, self).__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)
        return output


n_hidden = 16
rnn = det(CharRNN(n_letters, n_hidden, len(all_categories)))
print(rnn)


def label_from_output(output, output_labels):
    top_n, top_i = output.topk(1)
    label_i = top_i[0].item()
    return output_labels[label_i], label_i


inp = lineToTensor("Albert")
output = rnn(inp)
print("out", output.shape, np.round(output.detach().double().numpy(), 4).tolist())
print("label", label_from_output(output, all_categories))


def train(rnn, training_data, n_epoch=4, n_batch_size=4, learning_rate=0.05, criterion=nn.NLLLoss()):
    current_loss = 0
    all_losses = []
    rnn.train()
    optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)
    start = time.time()
    for iter in range(1, n_epoch + 1):
        rnn.zero_grad()
        batches = list(range(len(training_data)))
        batches = np.array_split(batches, len(batches) // n_batch_size)
        for idx, batch in enumerate(batches):
            batch_loss = 0
            for i in batch:
                (label_tensor, text_tensor, label, text) = training_data[i]
                output = rnn.forward(text_tensor)
                loss = criterion(output, label_tensor)
                batch_loss += loss
            batch_loss.backward()
            nn.utils.clip_grad_norm_(rnn.parameters(), 3)
            optimizer.step()
            optimizer.zero_grad()
            current_loss += batch_loss.item() / len(batch)
        all_losses.append(current_loss / len(batches))
        print(f"{iter} ({iter / n_epoch:.0%}): \t average batch loss = {all_losses[-1]:.4f}")
        current_loss = 0
    assert time.time() - start >= 0
    return all_losses


all_losses = train(rnn, alldata)


def evaluate(rnn, testing_data, classes):
    confusion = torch.zeros(len(classes), len(classes))
    rnn.eval()
    with torch.no_grad():
        for i in range(len(testing_data)):
            (label_tensor, text_tensor, label, text) = testing_data[i]
            output = rnn(text_tensor)
            guess, guess_i = label_from_output(output, classes)
            label_i = classes.index(label)
            confusion[label_i][guess_i] += 1
    for i in range(len(classes)):
        denom = confusion[i].sum()
        if denom > 0:
            confusion[i] = confusion[i] / denom
    return confusion


conf = evaluate(rnn, alldata, classes=all_categories)
print("confusion", np.round(conf.double().numpy(), 4).tolist())
topv, topi = rnn(lineToTensor("Rossi")).topk(3, 1, True)
print("topk", np.round(topv.detach().double().numpy(), 4).tolist(), topi.tolist())


# Generation: the hand-written RNN cell from "Generating names with a character-level RNN"
class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


n_letters_g = len(string.ascii_letters + " .,;'-") + 1
all_letters = string.ascii_letters + " .,;'-"


def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters_g)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters_g - 1)
    return torch.LongTensor(letter_indexes)


gen = det(RNN(n_letters_g, 16, n_letters_g), 0.2)
criterion = nn.NLLLoss()
learning_rate = 0.05


def train_gen(category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = gen.initHidden()
    gen.zero_grad()
    loss = torch.Tensor([0])
    for i in range(input_line_tensor.size(0)):
        output, hidden = gen(category_tensor, input_line_tensor[i], hidden)
        l = criterion(output, target_line_tensor[i])
        loss += l
    loss.backward()
    for p in gen.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item() / input_line_tensor.size(0)


gen.eval()  # no dropout: the numbers must not depend on the RNG stream
for it in range(6):
    cat = all_categories[it % 3]
    line = data[cat][it % 4]
    output, loss = train_gen(categoryTensor(cat), inputTensor(line), targetTensor(line))
    print("gen loss", cat, line, round(loss, 4))


def timeSince(since):
    now = time.time()
    s = now - since
    m = math.floor(s / 60)
    return m >= 0


print("timeSince", timeSince(time.time()))


def sample(category, start_letter="A", max_length=8):
    with torch.no_grad():
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = gen.initHidden()
        output_name = start_letter
        for i in range(max_length):
            output, hidden = gen(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters_g - 1:
                break
            else:
                letter = all_letters[topi]
                output_name += letter
            input = inputTensor(letter)
        return output_name


for c, s in [("English", "S"), ("French", "D"), ("Italian", "R")]:
    print("sample", c, sample(c, s))
probs = F.softmax(T(2, 5), dim=-1)
idx = torch.multinomial(probs, num_samples=3, replacement=True)
print("multinomial", idx.shape, idx.dtype, bool(((idx >= 0) & (idx < 5)).all()))
print("multinomial_nr", sorted(torch.multinomial(torch.tensor([0.0, 1.0, 2.0, 0.0]), 2).tolist()))
print("one-hot argmax", torch.multinomial(torch.tensor([[0.0, 0.0, 1.0]]), 1).item())
gru = det(nn.GRU(n_letters, 8, num_layers=2, batch_first=False), 0.2)
out, h = gru(lineToTensor("Moreau"))
print("gru", out.shape, h.shape, np.round(h[-1].detach().double().numpy(), 4).tolist())
lstm = det(nn.LSTM(n_letters, 6), 0.2)
out, (h, c) = lstm(lineToTensor("Lee"), (torch.zeros(1, 1, 6), torch.zeros(1, 1, 6)))
print("lstm", np.round(out[-1].detach().double().numpy(), 4).tolist(), torch.allclose(out[-1], h[0]))
