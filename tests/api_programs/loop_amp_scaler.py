"""Mixed-precision training steps on the CPU as AMP recipes write them: autocast to bfloat16 with the dtypes each
op produces, torch.amp.GradScaler with unscale_ before clipping, steps skipped on inf gradients and the scale
backing off and growing, gradient accumulation under the scaler, and the scaler's state dict in a resumed run."""

import io

import torch
from torch import nn

torch.manual_seed(81)
torch.set_printoptions(precision=4)

model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 3))
X = torch.randn(32, 6)
Y = torch.randint(0, 3, (32,))

# which dtypes autocast produces
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = model[0](X)
    g = model[1](h)
    n = model[2](g)
    logits = model[3](n)
    loss = nn.functional.cross_entropy(logits, Y)
    sm = torch.softmax(logits, -1)
    mm = X @ X.T
print("dtypes", h.dtype, g.dtype, n.dtype, logits.dtype, loss.dtype, sm.dtype, mm.dtype)
print("autocast state", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
    print("disabled", model[0](X).dtype)
print("loss bf16", round(loss.item(), 2))

# GradScaler: scale, unscale_ for clipping, step, update
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.5, growth_interval=2)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
print("scaler", scaler.is_enabled(), scaler.get_scale(), scaler.get_growth_interval())
for step in range(6):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(X), Y)
    scaled = scaler.scale(loss)
    scaled.backward()
    if step == 2:
        model[0].weight.grad[0, 0] = float("inf")
    scaler.unscale_(opt)
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    w_before = model[3].weight.detach().clone()
    scaler.step(opt)
    scaler.update()
    moved = not torch.equal(w_before, model[3].weight)
    print(f"step {step} loss {loss.item():.2f} scaled {scaled.item():.0f} norm {norm.item():.3f} "
          f"moved {moved} scale {scaler.get_scale()}")
print("grad dtype", model[0].weight.grad.dtype, "param dtype", model[0].weight.dtype)

# unscale_ twice in one step is an error
opt.zero_grad()
scaler.scale(nn.functional.cross_entropy(model(X), Y)).backward()
scaler.unscale_(opt)
try:
    scaler.unscale_(opt)
except RuntimeError as e:
    print("RuntimeError", e)
scaler.step(opt)
scaler.update()

# accumulation: scale each micro-batch loss, step once
accum = 4
opt.zero_grad()
for i in range(accum):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        micro = nn.functional.cross_entropy(model(X[i * 8:(i + 1) * 8]), Y[i * 8:(i + 1) * 8]) / accum
    scaler.scale(micro).backward()
scaler.unscale_(opt)
print("accum grad norm", round(nn.utils.clip_grad_norm_(model.parameters(), 10.0).item(), 2))
scaler.step(opt)
scaler.update()
print("scale after accum", scaler.get_scale())

# the scaler's state dict resumes the scale and growth tracker
sd = scaler.state_dict()
print("state", sorted(sd), sd["scale"], sd["_growth_tracker"])
buf = io.BytesIO()
torch.save({"scaler": sd, "opt": opt.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
s2 = torch.amp.GradScaler("cpu")
s2.load_state_dict(ck["scaler"])
print("resumed", s2.get_scale(), s2.get_growth_factor(), s2.get_backoff_factor(), s2.get_growth_interval())

# a disabled scaler passes everything through
off = torch.amp.GradScaler("cpu", enabled=False)
t = torch.tensor(3.0)
print("disabled scaler", off.scale(t) is t, off.get_scale(), off.state_dict())

# float16 autocast on the CPU
with torch.autocast("cpu", dtype=torch.float16):
    y16 = model[0](X)
print("fp16 autocast", y16.dtype)
