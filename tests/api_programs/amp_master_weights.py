"""Mixed precision by hand, as pre-AMP code (apex's O2, Megatron's fp16 optimizer) did it: a float16 or bfloat16
model with float32 master weights, static and dynamic loss scaling written out (overflow checks with isfinite,
skipping and halving, growing after a clean window), gradients copied to the masters and unscaled there, clipping
on the masters, the update copied back with copy_, and what goes wrong without masters (updates that round away)."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

X = torch.randn(64, 10)
true_w = torch.randn(10, 1)
Y = X @ true_w + 0.1 * torch.randn(64, 1)


def make(dtype):
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 1)).to(dtype)


# 1. bfloat16 model, float32 masters, no scaling needed
model = make(torch.bfloat16)
print("param dtypes:", {n: str(p.dtype) for n, p in model.named_parameters()})
masters = [p.detach().clone().float().requires_grad_() for p in model.parameters()]
opt = torch.optim.SGD(masters, lr=0.05, momentum=0.9)
for step in range(8):
    out = model(X.bfloat16())
    loss = F.mse_loss(out.float(), Y)
    model.zero_grad(set_to_none=True)
    loss.backward()
    for m, p in zip(masters, model.parameters()):
        m.grad = p.grad.float()
    opt.step()
    opt.zero_grad(set_to_none=True)
    with torch.no_grad():
        for m, p in zip(masters, model.parameters()):
            p.copy_(m)
    if step % 2 == 1:
        print(f"bf16+masters step {step}: loss {loss.item():.4f} out {out.dtype} grad {model[0].weight.grad[0, :4]}")
print("master vs model max diff:", max((m - p.float()).abs().max().item() for m, p in zip(masters,
                                                                                          model.parameters())))
print("masters[3]:", masters[3].detach())

# 2. the same without masters: tiny updates round away in bfloat16
model2 = make(torch.bfloat16)
opt2 = torch.optim.SGD(model2.parameters(), lr=1e-4)
before = [p.detach().clone() for p in model2.parameters()]
loss2 = F.mse_loss(model2(X.bfloat16()).float(), Y)
loss2.backward()
opt2.step()
changed = [int((b != p.detach()).sum()) for b, p in zip(before, model2.parameters())]
print("pure bf16 lr=1e-4 changed elements:", changed, "of", [p.numel() for p in model2.parameters()])
m_ = before[0].float().clone()
m_ -= 1e-4 * model2[0].weight.grad.float()
print("same update on an fp32 master changes:", int((m_ != before[0].float()).sum()))

# 3. float16 model, float32 masters, static loss scale of 128
model3 = make(torch.float16)
masters3 = [p.detach().clone().float() for p in model3.parameters()]
opt3 = torch.optim.Adam(masters3, lr=1e-2)
scale = 128.0
x16 = X.half()
for step in range(6):
    out = model3(x16)
    loss = F.mse_loss(out.float(), Y)
    model3.zero_grad()
    (loss * scale).backward()
    for m, p in zip(masters3, model3.parameters()):
        m.grad = p.grad.float() / scale
    torch.nn.utils.clip_grad_norm_(masters3, 2.0)
    opt3.step()
    with torch.no_grad():
        for m, p in zip(masters3, model3.parameters()):
            p.copy_(m)
    print(f"fp16 static step {step}: loss {loss.item():.4f} grad[0,:3] {model3[0].weight.grad[0, :3]}")

# 4. dynamic loss scaling by hand, starting too high so the first steps overflow
model4 = make(torch.float16)
masters4 = [p.detach().clone().float() for p in model4.parameters()]
opt4 = torch.optim.SGD(masters4, lr=0.02)
scale, good_steps, window = 2.0 ** 20, 0, 3
history = []
for step in range(12):
    out = model4(x16)
    loss = F.mse_loss(out.float(), Y)
    model4.zero_grad()
    (loss * scale).backward()
    grads = [p.grad for p in model4.parameters()]
    overflow = not all(torch.isfinite(g).all() for g in grads)
    if overflow:
        scale /= 2
        good_steps = 0
        history.append(("skip", scale))
        continue
    for m, g in zip(masters4, grads):
        m.grad = g.float().div_(scale)
    opt4.step()
    with torch.no_grad():
        for m, p in zip(masters4, model4.parameters()):
            p.copy_(m)
    good_steps += 1
    if good_steps == window:
        scale *= 2
        good_steps = 0
    history.append((round(loss.item(), 4), scale))
print("dynamic scaling:", history)
print("final fp16 weights[0,:4]:", model4[0].weight[0, :4].detach())

# 5. the scaled loss in float16 itself overflows: why losses are kept in float32
l16 = F.mse_loss(model4(x16), Y.half())
print("loss in fp16:", l16.dtype, round(l16.item(), 3), "x 65536 ->", (l16 * 65536).item(),
      "in fp32 ->", round((l16.float() * 65536).item(), 1))
print("fp16 grads of an fp16 loss x 1024:", end=" ")
model4.zero_grad()
(l16 * 1024).backward()
print(model4[2].weight.grad.dtype, model4[2].weight.grad[0, :4])
