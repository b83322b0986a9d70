"""The mixed-precision training step as AMP recipes write it, on the CPU: autocast to bfloat16 around the forward,
torch.amp.GradScaler("cpu") scaling the loss, unscale_ before clip_grad_norm_, inf/NaN steps skipped with the scale
backed off, growth after growth_interval clean steps, the scaler's state_dict round trip, and gradient accumulation
under the scaler."""

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)

X = torch.randn(32, 8)
y = torch.randint(0, 3, (32,))


def make():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


model, opt = make()
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**8, growth_factor=2.0, backoff_factor=0.5, growth_interval=2)
print("enabled:", scaler.is_enabled(), "scale:", scaler.get_scale())
for step in range(6):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(X)
        loss = nn.functional.cross_entropy(out, y)
    print(f"step {step} out dtype {out.dtype} loss dtype {loss.dtype} loss {loss.item():.3f}")
    scaled = scaler.scale(loss)
    scaled.backward()
    if step == 3:  # a poisoned gradient: the step is skipped and the scale backs off
        model[0].weight.grad[0, 0] = float("inf")
    scaler.unscale_(opt)
    norm = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    w_before = model[2].bias.detach().clone()
    scaler.step(opt)
    scaler.update()
    skipped = torch.equal(w_before, model[2].bias.detach())
    print(f"   scaled {scaled.item():.2f} norm {norm.item():.3f} skipped {skipped} scale {scaler.get_scale()}")

sd = scaler.state_dict()
print("scaler state:", {k: v for k, v in sorted(sd.items())})
fresh = torch.amp.GradScaler("cpu")
fresh.load_state_dict(sd)
print("loaded:", fresh.get_scale(), fresh.get_growth_factor(), fresh.get_backoff_factor(), fresh.get_growth_interval())
print("bias:", model[2].bias.detach())

# unscale_ twice in one step is an error; step without unscale_ unscales itself
opt.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = nn.functional.cross_entropy(model(X), y)
scaler.scale(loss).backward()
scaler.unscale_(opt)
try:
    scaler.unscale_(opt)
except RuntimeError as e:
    print("RuntimeError:", e)
scaler.step(opt)
scaler.update()

# gradient accumulation under the scaler: 2 micro-batches, one step
model2, opt2 = make()
scaler2 = torch.amp.GradScaler("cpu", init_scale=1024.0)
for it in range(2):
    opt2.zero_grad()
    for xb, yb in zip(X.chunk(2), y.chunk(2)):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model2(xb), yb) / 2
        scaler2.scale(loss).backward()
    print(f"accum {it}: grad norm (scaled) {model2[0].weight.grad.norm().item() / scaler2.get_scale():.3f}")
    scaler2.step(opt2)
    scaler2.update()
print("head bias after accumulation:", model2[2].bias.detach())

# a disabled scaler is a pass-through
off = torch.amp.GradScaler("cpu", enabled=False)
t = torch.tensor(3.0, requires_grad=True)
print("disabled:", off.scale(t) is t, off.get_scale(), off.state_dict())
