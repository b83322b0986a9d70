"""A Gaussian mixture fit by maximum likelihood as research code writes it: MixtureSameFamily over Normal and
Independent(Normal) components with unconstrained parameters, Adam on the negative log-likelihood, EM in closed
form for comparison, responsibilities via Categorical logits, the mixture's mean/variance/cdf, and sampling from
the fitted model."""
import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

# 1-D data from three components
true_w = torch.tensor([0.5, 0.3, 0.2])
true_mu = torch.tensor([-2.0, 1.0, 4.0])
true_sd = torch.tensor([0.6, 0.5, 1.0])
gen = D.MixtureSameFamily(D.Categorical(true_w), D.Normal(true_mu, true_sd))
x = gen.sample((600,))
print("data", x.shape, round(x.mean().item(), 4), round(x.std().item(), 4))
print("true mixture mean", round(gen.mean.item(), 4), "variance", round(gen.variance.item(), 4))
print("true log-lik", round(gen.log_prob(x).mean().item(), 4))
print("cdf at -2,1,4", [round(v, 4) for v in gen.cdf(torch.tensor([-2.0, 1.0, 4.0])).tolist()])

# gradient-based MLE with unconstrained parameters
logits = torch.zeros(3, requires_grad=True)
mu = torch.tensor([-1.0, 0.0, 1.0], requires_grad=True)
log_sd = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([logits, mu, log_sd], lr=0.05)
for step in range(301):
    mix = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(mu, log_sd.exp()))
    nll = -mix.log_prob(x).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 100 == 0:
        print(f"adam step {step:3d} nll {nll.item():.4f}")
order = mu.detach().argsort()
print("adam weights", [round(v, 2) for v in torch.softmax(logits.detach(), 0)[order].tolist()])
print("adam means", [round(v, 2) for v in mu.detach()[order].tolist()])
print("adam sds", [round(v, 2) for v in log_sd.detach().exp()[order].tolist()])


# EM in closed form
def em(x, w, m, s, iters):
    for _ in range(iters):
        comp = D.Normal(m, s)
        log_r = comp.log_prob(x[:, None]) + w.log()
        resp = torch.softmax(log_r, dim=1)  # E step
        nk = resp.sum(0)
        w = nk / x.shape[0]
        m = (resp * x[:, None]).sum(0) / nk
        s = ((resp * (x[:, None] - m) ** 2).sum(0) / nk).sqrt()
    ll = D.MixtureSameFamily(D.Categorical(w), D.Normal(m, s)).log_prob(x).mean()
    return w, m, s, ll


w, m, s, ll = em(x, torch.full((3,), 1 / 3), torch.tensor([-1.0, 0.0, 1.0]), torch.ones(3), 100)
print("em weights", [round(v, 2) for v in w.tolist()], "means", [round(v, 2) for v in m.tolist()])
print("em sds", [round(v, 2) for v in s.tolist()], "ll", round(ll.item(), 3))
print("adam and em agree", abs(ll.item() + nll.item()) < 0.01)

# responsibilities as a Categorical posterior
fitted = D.MixtureSameFamily(D.Categorical(w), D.Normal(m, s))
pts = torch.tensor([-2.5, 0.0, 1.0, 3.0, 6.0])
post = D.Categorical(logits=fitted.component_distribution.log_prob(pts[:, None]) + fitted.mixture_distribution.logits)
print("responsibilities", post.probs)
print("hard assignments", post.probs.argmax(-1).tolist(), "entropy", post.entropy())

# 2-D mixture with Independent components, batch of mixtures via batch shapes
torch.manual_seed(1)
locs = torch.tensor([[0.0, 0.0], [3.0, 3.0], [-3.0, 3.0]])
comp = D.Independent(D.Normal(locs, torch.full((3, 2), 0.7)), 1)
mix2 = D.MixtureSameFamily(D.Categorical(torch.ones(3)), comp)
print("2d mixture", mix2.batch_shape, mix2.event_shape, "mean", mix2.mean, "variance", mix2.variance)
pts2 = mix2.sample((400,))
print("2d sample", pts2.shape, "log_prob", round(mix2.log_prob(pts2).mean().item(), 4))
print(mix2)
batched = D.MixtureSameFamily(D.Categorical(logits=torch.zeros(4, 3)),
                              D.Normal(torch.randn(4, 3), torch.ones(4, 3)))
print("batched mixtures", batched.batch_shape, batched.sample((2,)).shape, batched.log_prob(torch.zeros(4)).shape)
print("log_prob broadcast", batched.log_prob(torch.zeros(5, 1)).shape)

# fitted model sampling and a KS-style check against the data
torch.manual_seed(2)
new = fitted.sample((1000,))
grid = torch.linspace(-4, 7, 12)
emp = (new[:, None] <= grid).float().mean(0)
print("max |ecdf - cdf|", round((emp - fitted.cdf(grid)).abs().max().item(), 2) < 0.06)
print("fitted mean/var", round(fitted.mean.item(), 3), round(fitted.variance.item(), 3), "sample",
      round(new.mean().item(), 2), round(new.var().item(), 2))
