"""Ensemble teachers and EMA students: stack_module_state with vmap, averaged soft labels, a mean
teacher, EMA warmup."""

import copy
import torch

nn = torch.nn
F = torch.nn.functional
from torch.func import functional_call, stack_module_state, vmap  # noqa: E402

torch.manual_seed(0)
teachers = [nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4)) for _ in range(3)]
params, buffers = stack_module_state(teachers)
print({k: tuple(v.shape) for k, v in params.items()}, buffers, params["0.weight"].requires_grad)
skeleton = copy.deepcopy(teachers[0]).to("meta")


def run(p, b, x):
    return functional_call(skeleton, (p, b), (x,))


x = torch.randn(6, 3)
logits = vmap(run, in_dims=(0, 0, None))(params, buffers, x)
loop = torch.stack([t(x) for t in teachers])
print(tuple(logits.shape), torch.allclose(logits, loop, atol=1e-6))
T = 2.0
probs = F.softmax(logits.detach() / T, -1).mean(0)
log_mean = torch.logsumexp(F.log_softmax(logits.detach() / T, -1), 0) - torch.log(torch.tensor(3.0))
print("ensemble probs", probs[0].round(decimals=4).tolist(), torch.allclose(probs.log(), log_mean, atol=1e-6))
print("disagreement", round(F.softmax(logits / T, -1).var(0).sum().item(), 4))
logits.sum().backward()
print("stacked grad", round(params["2.bias"].grad.abs().sum().item(), 4))
# a weight-space soup of the ensemble
soup = {k: v.detach().mean(0) for k, v in params.items()}
print("soup logits", round(functional_call(teachers[0], soup, (x,)).sum().item(), 4))

student = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 4))
opt = torch.optim.SGD(student.parameters(), lr=0.2, momentum=0.9)
mean_teacher = copy.deepcopy(student).requires_grad_(False)
ema_sd = {k: v.clone() for k, v in student.state_dict().items()}
for step in range(1, 5):
    opt.zero_grad()
    s = student(x)
    loss = F.kl_div(F.log_softmax(s / T, -1), probs, reduction="batchmean") * T * T
    consistency = F.mse_loss(F.softmax(s, -1), F.softmax(mean_teacher(x), -1))
    (loss + consistency).backward()
    opt.step()
    with torch.no_grad():
        torch._foreach_lerp_(list(mean_teacher.parameters()), list(student.parameters()), 0.1)
        for tb, sb in zip(mean_teacher.buffers(), student.buffers()):
            tb.copy_(sb)
        decay = min(0.999, (1 + step) / (10 + step))
        for k, v in student.state_dict().items():
            if v.dtype.is_floating_point:
                ema_sd[k].mul_(decay).add_(v, alpha=1 - decay)
            else:
                ema_sd[k].copy_(v)
    print(
        step,
        round(loss.item(), 4),
        round(consistency.item(), 4),
        round(decay, 4),
        round(sum(p.sum().item() for p in mean_teacher.parameters()), 4),
        round(ema_sd["0.weight"].sum().item(), 4),
        mean_teacher[1].num_batches_tracked.item(),
    )
ema_model = copy.deepcopy(student)
print(ema_model.load_state_dict(ema_sd), ema_model[1].num_batches_tracked)
ema_model.eval()
with torch.no_grad():
    print("ema agrees", round((ema_model(x).argmax(1) == probs.argmax(1)).float().mean().item(), 4))

try:
    torch._foreach_lerp_([torch.zeros(2, dtype=torch.long)], [torch.ones(2, dtype=torch.long)], 0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    stack_module_state([nn.Linear(2, 2), nn.Linear(3, 2)])
except Exception as e:
    print(type(e).__name__, e)
try:
    stack_module_state([])
except Exception as e:
    print(type(e).__name__, e)
try:
    stack_module_state([nn.Linear(2, 2), nn.Linear(2, 2).eval()])
except Exception as e:
    print(type(e).__name__, e)
try:
    vmap(run, in_dims=(0, 0, 0))(params, buffers, x)
except Exception as e:
    print(type(e).__name__, str(e)[:90])
