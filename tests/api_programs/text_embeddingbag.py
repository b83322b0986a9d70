"""The text-classification tutorial: a tokenizer and vocab, collate_batch building text/offsets for
nn.EmbeddingBag, a TextClassificationModel, SGD + StepLR, clip_grad_norm_, to_map_style-like splits
with random_split, accuracy bookkeeping and prediction of a new sentence."""

# ruff: noqa: UP008, UP031, UP032  (the tutorials' own idioms, kept as written)

import collections
import re
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.data.dataset import random_split

rng = np.random.default_rng(0)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def basic_english(line):
    line = line.lower()
    line = re.sub(r"([.,!?])", r" \1 ", line)
    return line.split()


topics = {
    1: "world war election president minister country government",
    2: "sports game team match score player win",
    3: "business market stock price company profit trade",
    4: "science computer research software data space model",
}
train_iter = []
for i in range(48):
    label = i % 4 + 1
    ws = topics[label].split()
    pick = rng.integers(0, len(ws), 5 + i % 3)
    train_iter.append((label, " ".join(ws[j] for j in pick) + ("!" if i % 5 == 0 else ".")))
print("sample", train_iter[0])

counter = collections.Counter()
for _, text in train_iter:
    counter.update(basic_english(text))
itos = ["<unk>"] + sorted(counter, key=lambda w: (-counter[w], w))
stoi = {w: i for i, w in enumerate(itos)}


def vocab(tokens):
    return [stoi.get(t, 0) for t in tokens]


print("vocab", len(itos), vocab(["here", "is", "the", "game", "market"]))
text_pipeline = lambda x: vocab(basic_english(x))  # noqa: E731
label_pipeline = lambda x: int(x) - 1  # noqa: E731
print("pipelines", text_pipeline("Stock price, win!"), label_pipeline("3"))
device = torch.device("cpu")


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(label_pipeline(_label))
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list.to(device), text_list.to(device), offsets.to(device)


lbl, txt, offs = collate_batch(train_iter[:3])
print("collate", lbl.tolist(), txt.tolist(), offs.tolist(), offs.dtype)


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()
        self.embedding.weight.data.copy_(T(*self.embedding.weight.shape) * 0.3)
        self.fc.weight.data.copy_(T(*self.fc.weight.shape) * 0.3)

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


num_class = len(set([label for (label, text) in train_iter]))
vocab_size = len(itos)
emsize = 8
model = TextClassificationModel(vocab_size, emsize, num_class).to(device)
print(model)
print("bag", np.round(model.embedding(txt, offs).detach().double().numpy()[:, :4], 4).tolist())


def train(dataloader):
    model.train()
    total_acc, total_count = 0, 0
    log_interval = 2
    for idx, (label, text, offsets) in enumerate(dataloader):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
        if idx % log_interval == 0 and idx > 0:
            print("| epoch {:3d} | {:5d}/{:5d} batches | accuracy {:8.3f}".format(
                epoch, idx, len(dataloader), total_acc / total_count))
            total_acc, total_count = 0, 0


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0
    with torch.no_grad():
        for idx, (label, text, offsets) in enumerate(dataloader):
            predicted_label = model(text, offsets)
            loss = criterion(predicted_label, label)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count, loss.item()


EPOCHS = 4
LR = 5
BATCH_SIZE = 8
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
total_accu = None
train_dataset = train_iter[:40]
test_dataset = train_iter[40:]
num_train = int(len(train_dataset) * 0.95)
split_train_, split_valid_ = random_split(train_dataset, [num_train, len(train_dataset) - num_train])
print("split", len(split_train_), len(split_valid_), type(split_train_).__name__)
train_dataloader = DataLoader(train_dataset[:32], batch_size=BATCH_SIZE, shuffle=False, collate_fn=collate_batch)
valid_dataloader = DataLoader(train_dataset[32:], batch_size=BATCH_SIZE, shuffle=False, collate_fn=collate_batch)
test_dataloader = DataLoader(test_dataset, batch_size=BATCH_SIZE, shuffle=False, collate_fn=collate_batch)
for epoch in range(1, EPOCHS + 1):
    train(train_dataloader)
    accu_val, vloss = evaluate(valid_dataloader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    print("| end of epoch {:3d} | valid accuracy {:8.3f} | loss {:.4f} | lr {:.4f}".format(
        epoch, accu_val, vloss, optimizer.param_groups[0]["lr"]))
accu_test, _ = evaluate(test_dataloader)
print("test accuracy {:8.3f}".format(accu_test))
ag_news_label = {1: "World", 2: "Sports", 3: "Business", 4: "Sci/Tec"}


def predict(text, text_pipeline):
    with torch.no_grad():
        text = torch.tensor(text_pipeline(text))
        output = model(text, torch.tensor([0]))
        return output.argmax(1).item() + 1


ex_text_str = "The team won the match with a late score by the best player."
print("This is a %s news" % ag_news_label[predict(ex_text_str, text_pipeline)])
# EmbeddingBag modes, 2-D input, per_sample_weights, padding_idx, from_pretrained
w = T(6, 3)
for mode in ["sum", "mean", "max"]:
    eb = nn.EmbeddingBag.from_pretrained(w, mode=mode)
    print("mode", mode, np.round(eb(torch.tensor([1, 2, 4, 5, 0]), torch.tensor([0, 2])).double().numpy(), 4).tolist())
eb = nn.EmbeddingBag.from_pretrained(w, mode="sum", freeze=False, padding_idx=0)
out = eb(torch.tensor([[1, 0, 3], [2, 2, 0]]), per_sample_weights=torch.tensor([[1.0, 2.0, 0.5], [0.5, 0.5, 9.0]]))
print("psw", np.round(out.detach().double().numpy(), 4).tolist(), eb.weight.requires_grad)
out.sum().backward()
print("grad", np.round(eb.weight.grad.double().numpy(), 4).tolist())
eb2 = nn.EmbeddingBag(10, 3, mode="mean", include_last_offset=True)
print("last_offset", eb2(torch.tensor([1, 2, 3, 4]), torch.tensor([0, 1, 4])).shape)
print("empty_bag", nn.EmbeddingBag.from_pretrained(w)(torch.tensor([1, 2]), torch.tensor([0, 2, 2])).tolist()[1:])
fe = nn.functional.embedding_bag(torch.tensor([0, 1, 1]), w, torch.tensor([0, 1]), mode="mean")
print("functional", np.round(fe.double().numpy(), 4).tolist())
