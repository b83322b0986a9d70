"""SWAG: running first/second moments of SGD iterates, low-rank deviations, posterior sampling and BN refresh."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions
from torch.nn.utils import parameters_to_vector, vector_to_parameters  # noqa: E402
from torch.optim.swa_utils import AveragedModel, SWALR, update_bn, get_ema_multi_avg_fn  # noqa: E402


def r(t):
    return t.detach().round(decimals=4).tolist()


torch.manual_seed(0)
X = torch.randn(200, 5)
w_true = torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0])
y = X @ w_true + 0.3 * torch.randn(200)
model = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
swa_model = AveragedModel(model)
swa_sched = SWALR(opt, swa_lr=0.01, anneal_epochs=3, anneal_strategy="cos")
print("n_averaged", swa_model.n_averaged.item(), type(swa_model.module).__name__)

vec = parameters_to_vector(model.parameters())
D_ = vec.numel()
mean = torch.zeros(D_)
sq_mean = torch.zeros(D_)
deviations = []
K, n_models = 5, 0
lrs = []
for epoch in range(20):
    perm = torch.randperm(200)
    for i in range(0, 200, 40):
        idx = perm[i : i + 40]
        opt.zero_grad()
        loss = F.mse_loss(model(X[idx]).squeeze(-1), y[idx])
        loss.backward()
        opt.step()
    if epoch >= 10:
        swa_model.update_parameters(model)
        swa_sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 5))
        w = parameters_to_vector(model.parameters()).detach()
        mean = (n_models * mean + w) / (n_models + 1)
        sq_mean = (n_models * sq_mean + w**2) / (n_models + 1)
        deviations.append(w - mean)
        deviations = deviations[-K:]
        n_models += 1
print("lrs", lrs)
print("n_averaged", swa_model.n_averaged.item(), "n_models", n_models)
swa_vec = parameters_to_vector(swa_model.module.parameters()).detach()
print("swa mean matches", torch.allclose(swa_vec, mean, atol=1e-5))
var = torch.clamp(sq_mean - mean**2, min=1e-8)
print("var positive", bool((var > 0).all()), "D", D_)
Dhat = torch.stack(deviations, 1)
print("deviation matrix", Dhat.shape)
post = D.LowRankMultivariateNormal(mean, Dhat / (2 * (K - 1)) ** 0.5, var / 2)
print("posterior", post.batch_shape, post.event_shape)
torch.manual_seed(1)
draws = post.sample((500,))
print("draws mean close", torch.allclose(draws.mean(0), mean, atol=0.1))
print("cov trace ratio", round((torch.cov(draws.T).trace() / post.covariance_matrix.trace()).item(), 1))

# Bayesian model averaging: load each draw, refresh BN statistics, predict
loader = [(X[i : i + 50], y[i : i + 50]) for i in range(0, 200, 50)]
sample_model = AveragedModel(model)
preds = []
for s in draws[:10]:
    vector_to_parameters(s, sample_model.module.parameters())
    update_bn([xb for xb, _ in loader], sample_model)
    sample_model.eval()
    with torch.no_grad():
        preds.append(sample_model(X[:4]).squeeze(-1))
preds = torch.stack(preds)
print("bma shape", preds.shape, "spread positive", bool((preds.std(0) > 0).all()))
update_bn([xb for xb, _ in loader], swa_model)
bn = swa_model.module[1]
print("bn momentum restored", bn.momentum, "batches tracked", bn.num_batches_tracked.item())
batch_mean = swa_model.module[0](X).mean(0)
print("bn running_mean is data mean", torch.allclose(bn.running_mean, batch_mean, atol=1e-4))

# EMA averaging variant
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
before = parameters_to_vector(ema.parameters()).clone()
with torch.no_grad():
    for p in model.parameters():
        p.add_(1.0)
ema.update_parameters(model)
ema.update_parameters(model)
after = parameters_to_vector(ema.parameters())
print("ema shift", round((after - before).mean().item(), 4))
custom = AveragedModel(model, avg_fn=lambda avg, new, n: 0.5 * avg + 0.5 * new)
custom.update_parameters(model)
print("custom n_averaged", custom.n_averaged.item())
try:
    vector_to_parameters(torch.zeros(3), model.parameters())
except Exception as e:
    print(type(e).__name__, e)
try:
    SWALR(opt, swa_lr=0.01, anneal_strategy="exp")
except Exception as e:
    print(type(e).__name__, e)
try:
    parameters_to_vector([torch.zeros(2)])
    print(parameters_to_vector([torch.zeros(2), torch.ones(1, 2)]).tolist())
except Exception as e:
    print(type(e).__name__, e)
