"""The nn.Transformer language-model tutorial: PositionalEncoding with register_buffer, TransformerEncoder,
generate_square_subsequent_mask, batchify/get_batch, StepLR, clip_grad_norm_, math.exp perplexity, best-model
copy by state_dict, plus nn.Transformer's encoder-decoder with masks."""

import copy
import math
import os
import tempfile
import numpy as np
import torch
from torch import nn, Tensor
from torch.nn import TransformerEncoder, TransformerEncoderLayer

rng = np.random.default_rng(0)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def det(m, scale=0.2):
    with torch.no_grad():
        for name, p in m.named_parameters():
            p.copy_(1.0 + T(*p.shape) * 0.1 if "norm" in name and name.endswith("weight") else T(*p.shape) * scale)
    return m


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.pe[: x.size(0)]
        return self.dropout(x)


class TransformerModel(nn.Module):
    def __init__(self, ntoken: int, d_model: int, nhead: int, d_hid: int, nlayers: int, dropout: float = 0.5):
        super().__init__()
        self.model_type = "Transformer"
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self) -> None:
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src: Tensor, src_mask: Tensor = None) -> Tensor:
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src)).to(src.device)
        output = self.transformer_encoder(src, src_mask)
        output = self.linear(output)
        return output


pe = PositionalEncoding(8, max_len=50)
print("pe", tuple(pe.pe.shape), np.round(pe.pe[3, 0].double().numpy(), 4).tolist(), [n for n, _ in pe.named_buffers()])
print("pe_state", list(pe.state_dict().keys()), pe.pe.requires_grad)
mask = nn.Transformer.generate_square_subsequent_mask(4)
print("mask", mask.dtype, mask.tolist())
print("mask_dtype", nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64).dtype)

words = "the quick brown fox jumps over the lazy dog and the cat sat on the mat while a dog ran".split()
vocab = {w: i for i, w in enumerate(sorted(set(words)))}
vocab_size = len(vocab)
text = words * 6
data = torch.tensor([vocab[w] for w in text], dtype=torch.long)
print("data", data.shape, data[:10].tolist(), data.numel())


def batchify(data: Tensor, bsz: int) -> Tensor:
    seq_len = data.size(0) // bsz
    data = data[: seq_len * bsz]
    data = data.view(bsz, seq_len).t().contiguous()
    return data


batch_size = 4
eval_batch_size = 2
train_data = batchify(data[:80], batch_size)
val_data = batchify(data[80:], eval_batch_size)
print("batchify", tuple(train_data.shape), tuple(val_data.shape), train_data.is_contiguous(), train_data[0].tolist())
bptt = 7


def get_batch(source: Tensor, i: int):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].reshape(-1)
    return data, target


d0, t0 = get_batch(train_data, 0)
print("get_batch", tuple(d0.shape), tuple(t0.shape), t0[:5].tolist())

ntokens = vocab_size
emsize, d_hid, nlayers, nhead, dropout = 16, 32, 2, 2, 0.2
model = TransformerModel(ntokens, emsize, nhead, d_hid, nlayers, dropout)
det(model)
print("nparams", sum(p.numel() for p in model.parameters()), len(model.transformer_encoder.layers))
print("names", [n for n, _ in model.named_parameters()][:8])
criterion = nn.CrossEntropyLoss()
lr = 1.0
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)


def train(model: nn.Module, epoch) -> None:
    model.eval()  # the tutorial trains with model.train(); eval keeps dropout out of the printed numbers
    total_loss = 0.0
    log_interval = 4
    num_batches = len(train_data) // bptt
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        output = model(data)
        output_flat = output.view(-1, ntokens)
        loss = criterion(output_flat, targets)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total_loss += loss.item()
        if batch % log_interval == 0 and batch > 0:
            lr = scheduler.get_last_lr()[0]
            cur_loss = total_loss / log_interval
            ppl = math.exp(cur_loss)
            print(f"| epoch {epoch:3d} | {batch:5d}/{num_batches:5d} batches | lr {lr:02.2f} | "
                  f"loss {cur_loss:5.4f} | ppl {ppl:8.4f}")
            total_loss = 0


def evaluate(model: nn.Module, eval_data: Tensor) -> float:
    model.eval()
    total_loss = 0.0
    with torch.no_grad():
        for i in range(0, eval_data.size(0) - 1, bptt):
            data, targets = get_batch(eval_data, i)
            seq_len = data.size(0)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            total_loss += seq_len * criterion(output_flat, targets).item()
    return total_loss / (len(eval_data) - 1)


best_val_loss = float("inf")
epochs = 3
with tempfile.TemporaryDirectory() as tempdir:
    best_model_params_path = os.path.join(tempdir, "best_model_params.pt")
    for epoch in range(1, epochs + 1):
        train(model, epoch)
        val_loss = evaluate(model, val_data)
        val_ppl = math.exp(val_loss)
        print("-" * 40)
        print(f"| end of epoch {epoch:3d} | valid loss {val_loss:5.4f} | valid ppl {val_ppl:8.4f}")
        if val_loss < best_val_loss:
            best_val_loss = val_loss
            torch.save(model.state_dict(), best_model_params_path)
            best_state = copy.deepcopy(model.state_dict())
        scheduler.step()
    model.load_state_dict(torch.load(best_model_params_path))
print("best", round(best_val_loss, 4), round(evaluate(model, val_data), 4), round(scheduler.get_last_lr()[0], 6))
print("best_state", all(torch.equal(best_state[k], v) for k, v in model.state_dict().items()))

# nn.Transformer encoder-decoder with padding and causal masks
tr = det(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                        dropout=0.0, batch_first=True), 0.2)
src, tgt = T(2, 5, 8), T(2, 4, 8)
tgt_mask = tr.generate_square_subsequent_mask(4)
src_pad = torch.tensor([[False, False, False, True, True], [False] * 5])
out = tr(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_pad, memory_key_padding_mask=src_pad,
         tgt_is_causal=True)
print("transformer", tuple(out.shape), np.round(out[0, 0].detach().double().numpy(), 4).tolist())
mem = tr.encoder(src, src_key_padding_mask=src_pad)
dec = tr.decoder(tgt, mem, tgt_mask=tgt_mask, memory_key_padding_mask=src_pad)
print("enc_dec", torch.allclose(dec, out, atol=1e-5))
