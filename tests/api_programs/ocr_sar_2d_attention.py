"""SAR's 2-D attention recogniser (show, attend and read) as MMOCR writes it: valid width ratios from padded
batches turned into (N, H, W) masks, a holistic feature from column max pooling, an LSTM decoder over steps with
2-D additive attention computed by conv2d and masked_fill before a softmax over the flattened map, teacher-forced
training with label smoothing, and attention maps that sum to one inside each image's valid region."""

import torch
from torch import nn

F = torch.nn.functional

torch.manual_seed(0)
N, C, H, W = 3, 8, 4, 12
V, PAD, SOS, EOS = 10, 0, 1, 2
feat = torch.randn(N, C, H, W)
widths = torch.tensor([48, 30, 18])  # original image widths before right-padding to 48
valid_ratio = (widths.float() / widths.max()).clamp(max=1.0)
valid_w = torch.ceil(valid_ratio * W).long()
print("valid ratio", valid_ratio.round(decimals=4).tolist(), "valid cols", valid_w.tolist())
mask = torch.arange(W)[None, None, :] < valid_w[:, None, None]  # (N, 1, W)
mask = mask.expand(N, H, W)
print("mask", tuple(mask.shape), mask.sum(dim=(1, 2)).tolist())


class SARDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc_rnn = nn.LSTM(C, 8, num_layers=2, batch_first=True)
        self.emb = nn.Embedding(V, 8, padding_idx=PAD)
        self.dec_rnn = nn.LSTM(8, 8, num_layers=2, batch_first=True)
        self.conv_key = nn.Conv2d(C, 8, 3, padding=1)
        self.query = nn.Linear(8, 8)
        self.score = nn.Conv2d(8, 1, 1, bias=False)
        self.out = nn.Linear(8 + C + 8, V)

    def holistic(self, feat, valid_w):
        cols = F.max_pool2d(feat, kernel_size=(H, 1), stride=1).squeeze(2).transpose(1, 2)  # (N, W, C)
        out, _ = self.enc_rnn(cols)
        return out[torch.arange(N), valid_w - 1]  # last valid column

    def forward(self, feat, mask, tokens):
        hol = self.holistic(feat, valid_w)
        seq = torch.cat([hol[:, None], self.emb(tokens)], 1)  # holistic feature as step 0
        h, _ = self.dec_rnn(seq)
        h = h[:, 1:]  # (N, T, 8)
        key = self.conv_key(feat)  # (N, 8, H, W)
        q = self.query(h)  # (N, T, 8)
        e = torch.tanh(key[:, None] + q[..., None, None])  # (N, T, 8, H, W)
        T = tokens.size(1)
        s = self.score(e.flatten(0, 1)).view(N, T, H, W)
        s = s.masked_fill(~mask[:, None], float("-inf"))
        a = s.flatten(2).softmax(-1).view(N, T, H, W)
        glimpse = torch.einsum("nthw,nchw->ntc", a, feat)
        logits = self.out(torch.cat([h, glimpse, hol[:, None].expand(-1, T, -1)], -1))
        return logits, a


dec = SARDecoder()
tgt = torch.tensor([[5, 6, 7, EOS], [3, 4, EOS, PAD], [8, EOS, PAD, PAD]])
inp = torch.cat([torch.full((N, 1), SOS), tgt[:, :-1]], 1)
opt = torch.optim.Adam(dec.parameters(), lr=5e-3)
for step in range(5):
    logits, attn = dec(feat, mask, inp)
    loss = F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1), ignore_index=PAD, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(dec.parameters(), 2.0, foreach=True)
    opt.step()
    print(step, round(loss.item(), 4), round(gn.item(), 4))

print("attn", tuple(attn.shape), "sums", attn.sum(dim=(2, 3)).round(decimals=4).tolist())
print(
    "outside valid region",
    attn[2, :, :, 5:].abs().max().item(),
    attn[1, :, :, 8:].abs().max().item(),
    round(attn[2, :, :, 3:].abs().max().item(), 4),
)
peak = attn.flatten(2).argmax(-1)
print("peak rows", (peak // W).tolist(), "peak cols", (peak % W).tolist())
print("peak within width", bool(((peak % W) < valid_w[:, None]).all()))
acc = (logits.argmax(-1) == tgt)[tgt != PAD].float().mean()
print("token acc", round(acc.item(), 4))
print("holistic", tuple(dec.holistic(feat, valid_w).shape))
print("einsum grad_fn", torch.einsum("nthw,nchw->ntc", attn, feat).grad_fn.name())
