"""torch.amp.GradScaler('cpu') in the training loops people write: two models and two optimizers sharing one
scaler (GAN-style), two losses scaled together, gradient clipping after unscale_, the growth tracker and
state_dict round trips mid-run, a closure-free step's return value, the scaler left unused, dynamic scaling
driven by injected overflows, and the deprecated torch.cpu.amp.GradScaler spelling with its FutureWarning."""

import warnings

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)

X = torch.randn(24, 6)
Y = (X[:, :2].sum(1, keepdim=True) > 0).float()

gen = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 6))
disc = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-2, betas=(0.5, 0.999))
opt_d = torch.optim.SGD(disc.parameters(), lr=5e-2, momentum=0.5)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=3)

print("fresh scaler:", scaler.get_scale(), scaler.get_growth_factor(), scaler.get_backoff_factor(),
      scaler.get_growth_interval(), scaler.is_enabled())
print("fresh state:", sorted(scaler.state_dict().items()))

for step in range(7):
    # discriminator
    opt_d.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        fake = gen(X)
        d_real, d_fake = disc(X), disc(fake.detach())
        loss_d = F.binary_cross_entropy_with_logits(d_real, Y) + \
            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
    scaler.scale(loss_d).backward()
    if step == 2:
        disc[0].bias.grad[1] = float("nan")
    scaler.unscale_(opt_d)
    gn = nn.utils.clip_grad_norm_(disc.parameters(), max_norm=1.0)
    ret_d = scaler.step(opt_d)
    # generator
    opt_g.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss_g = F.binary_cross_entropy_with_logits(disc(gen(X)), torch.ones(24, 1))
    scaler.scale(loss_g).backward()
    ret_g = scaler.step(opt_g)
    scaler.update()
    print(f"step {step}: loss_d {loss_d.item():.3f} ({loss_d.dtype}) loss_g {loss_g.item():.3f} "
          f"gnorm {gn.item():.3f} ret {ret_d} {ret_g} scale {scaler.get_scale():.0f} "
          f"tracker {scaler.state_dict()['_growth_tracker']}")
    if step == 3:
        saved = scaler.state_dict()

print("saved at step 3:", sorted(saved.items()))
print("gen bias:", gen[2].bias.detach())
print("disc weight row:", disc[2].weight.detach()[0, :4])
print("adam steps:", [opt_g.state[p]["step"].item() for p in gen.parameters()][:2])

# two losses scaled as one list; the scale multiplies each
a = torch.tensor(2.0, requires_grad=True)
sc = torch.amp.GradScaler("cpu", init_scale=8.0)
scaled = sc.scale([a * 3, a ** 2, (a * 0.5,)])
print("scaled list:", type(scaled).__name__, type(scaled[2]).__name__,
      [t.item() if torch.is_tensor(t) else [u.item() for u in t] for t in scaled])
sum(s for s in scaled[:2]).backward()
print("a.grad (scaled):", a.grad.item())
opt_a = torch.optim.SGD([a], lr=0.01)
sc.unscale_(opt_a)
print("a.grad (unscaled):", a.grad.item())
sc.step(opt_a)
sc.update()
print("a after step:", round(a.item(), 4), "scale", sc.get_scale())

# resume: a new scaler loaded from the checkpointed state continues the growth count
resumed = torch.amp.GradScaler("cpu")
resumed.load_state_dict(saved)
print("resumed:", resumed.get_scale(), resumed.state_dict()["_growth_tracker"], resumed.get_growth_interval())
w = torch.zeros(3, requires_grad=True)
opt_w = torch.optim.SGD([w], lr=0.1)
for i in range(4):
    opt_w.zero_grad()
    resumed.scale((w - torch.tensor([1.0, 2.0, 3.0])).pow(2).sum()).backward()
    resumed.step(opt_w)
    resumed.update()
    print(f"  resumed step {i}: scale {resumed.get_scale():.0f} tracker {resumed.state_dict()['_growth_tracker']} "
          f"w {w.detach()}")

# the scale backs off on every overflow of the scaled gradients until they fit
tiny = torch.tensor([1e-30], requires_grad=True)
sc2 = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16, backoff_factor=0.25, growth_interval=100)
opt_t = torch.optim.SGD([tiny], lr=1e-36)
for i in range(3):
    opt_t.zero_grad()
    loss = (tiny * 3e34).sum()
    sc2.scale(loss).backward()
    raw = tiny.grad.item()
    before = tiny.detach().clone()
    sc2.step(opt_t)
    sc2.update()
    print(f"overflow step {i}: loss {loss.item():.4e} scaled grad {raw:.4e} stepped {not torch.equal(before, tiny)} "
          f"scale {sc2.get_scale()}")
print("tiny after:", f"{tiny.item():.4e}")

# float16 parameters' gradients are refused by unscale_
h = torch.ones(2, dtype=torch.float16, requires_grad=True)
opt_h = torch.optim.SGD([h], lr=0.1)
sc3 = torch.amp.GradScaler("cpu")
sc3.scale(h.sum()).backward()
print("fp16 grad:", h.grad)
try:
    sc3.step(opt_h)
except ValueError as e:
    print("ValueError:", e)

# update(new_scale=...) sets the scale outright, as a float or a one-element tensor
sc2.update(new_scale=64.0)
print("new_scale float:", sc2.get_scale())
sc2.update(torch.tensor(32.0))
print("new_scale tensor:", sc2.get_scale())

# the deprecated spelling
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = torch.cpu.amp.GradScaler(init_scale=4.0)
print("deprecated:", type(old).__name__, isinstance(old, torch.amp.GradScaler), old.get_scale())
print("warnings:", [(w.category.__name__, str(w.message)) for w in caught])
