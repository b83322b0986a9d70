"""Training on ragged time series held as jagged nested tensors: a per-step encoder, masked losses, AdamW steps."""
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

lengths = [7, 3, 5, 9, 4]
series = [torch.sin(torch.linspace(0, 3, n))[:, None] * (i + 1) + 0.1 * torch.randn(n, 1)
          for i, n in enumerate(lengths)]
inputs = [torch.cat([s, torch.arange(len(s), dtype=torch.float32)[:, None] / 10], -1) for s in series]
targets = [s.roll(-1, 0) for s in series]

x = torch.nested.nested_tensor(inputs, layout=torch.jagged)
y = torch.nested.nested_tensor(targets, layout=torch.jagged)
print(x.shape[0], x.shape[2], y.shape[2], x.values().shape, x.offsets().tolist())
print(str(x.shape[1]) != str(y.shape[1]))  # built separately: two ragged sizes


class StepModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(2, 16)
        self.norm = nn.LayerNorm(16, elementwise_affine=False)
        self.hidden = nn.Linear(16, 16)
        self.out = nn.Linear(16, 1)
        self.drop = nn.Dropout(0.2)

    def forward(self, nt):
        h = F.silu(self.inp(nt))
        h = self.norm(h)
        h = h + self.drop(torch.tanh(self.hidden(h)))
        return self.out(h) * 0.5 + nt.chunk(2, dim=-1)[0]


model = StepModel()
opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=1e-2)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
model.eval()
pred = model(x)
print(type(pred).__name__ == type(x).__name__, pred.shape[2], pred.offsets() is x.offsets())
try:
    pred - y  # the targets' offsets are another tensor, so another ragged size
except RuntimeError as e:
    print("RuntimeError", str(e).replace(str(pred.size(1)), "j").replace(str(y.size(1)), "j"))

# the targets rebuilt on the inputs' offsets combine with the predictions
y_on_x = torch.nested.nested_tensor_from_jagged(y.values(), x.offsets())
print(y_on_x.size(1) is x.size(1) or str(y_on_x.size(1)) == str(x.size(1)))

losses = []
for step in range(6):
    model.train() if step % 2 else model.eval()
    model.drop.p = 0.0
    opt.zero_grad()
    pred = model(x)
    err = pred - y_on_x
    loss = (err * err).values().mean()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    losses.append(round(loss.item(), 4))
print(losses, sched.get_last_lr())
print(round(model.inp.weight.grad.norm().item(), 4), round(model.out.bias.item(), 4))

# a padded and masked version of the same loss gives the same number
model.eval()
with torch.no_grad():
    pred = model(x)
    pad_p, pad_t = pred.to_padded_tensor(0.0), y.to_padded_tensor(0.0)
    mask = torch.arange(pad_p.shape[1])[None, :, None] < torch.tensor(lengths)[:, None, None]
    masked = ((pad_p - pad_t) ** 2 * mask).sum() / mask.sum()
    direct = ((pred - y_on_x) ** 2).values().mean()
print(round(masked.item(), 4), round(direct.item(), 4), torch.allclose(masked, direct))
print(pad_p.shape, pred.requires_grad, [round(t[-1, 0].item(), 3) for t in pred.unbind()])

# per-series metrics from the components, and the worst series
mae = torch.stack([(p - t).abs().mean() for p, t in zip(pred.unbind(), y.unbind())])
print(mae.round(decimals=4).tolist(), int(mae.argmax()))

# saving the model still works with nested inputs in the loop
state = {k: v.shape for k, v in model.state_dict().items()}
print(sorted(state.items())[:3])
