"""The discrete families' details that classifier, language-model and RL code runs into: Categorical from
unnormalised probs or logits (normalisation, -inf logits masking actions, zero-probability entropy), top-k style
masking, OneHotCategoricalStraightThrough gradients, Multinomial counts and log_prob, Binomial edge counts,
rsample's NotImplementedError for discrete families, sample_n's warning, and reprs."""
import warnings

import torch
import torch.distributions as D

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.detach().flatten().tolist()]


t = torch.tensor
c1 = D.Categorical(probs=t([2.0, 1.0, 1.0]))
print("unnormalised probs", c1.probs, "logits", c1.logits)
c2 = D.Categorical(logits=t([3.0, 2.0, 2.0]))
print("logits normalised", c2.logits, "probs", c2.probs, "logsumexp", round(c2.logits.logsumexp(-1).item(), 4))
print("param_shape", c2.param_shape, "num_events", c2._num_events, "mean", c2.mean, "variance", c2.variance)
print(c1, c2)

# masking invalid actions with -inf logits
logits = t([[1.0, 2.0, 0.5, -1.0], [0.0, 0.0, 0.0, 0.0]])
mask = t([[True, False, True, True], [False, False, True, True]])
masked = D.Categorical(logits=logits.masked_fill(~mask, float("-inf")))
print("masked probs", masked.probs)
print("masked entropy", r(masked.entropy()), "finite", bool(torch.isfinite(masked.entropy()).all()))
torch.manual_seed(0)
draws = masked.sample((200,))
print("never picks masked", bool(mask.gather(1, draws.T).all()))
print("log_prob of masked action", r(masked.log_prob(t([1, 0]))))
zero = D.Categorical(probs=t([0.5, 0.5, 0.0]))
print("zero-prob entropy", round(zero.entropy().item(), 4), "log_prob(2)", zero.log_prob(t(2)).item())

# top-k / nucleus filtering as generation code does it
torch.manual_seed(1)
vocab_logits = torch.randn(10)
kth = vocab_logits.topk(3).values[-1]
topk = D.Categorical(logits=vocab_logits.masked_fill(vocab_logits < kth, float("-inf")))
print("top-3 support", sorted(set(topk.sample((100,)).tolist())), "top-3 ids", sorted(vocab_logits.topk(3).indices
                                                                                          .tolist()))
sorted_logits, idx = vocab_logits.sort(descending=True)
cum = sorted_logits.softmax(-1).cumsum(-1)
remove = cum > 0.8
remove[1:] = remove[:-1].clone()
remove[0] = False
nucleus = vocab_logits.clone()
nucleus[idx[remove]] = float("-inf")
nd = D.Categorical(logits=nucleus)
print("nucleus kept", int((nd.probs > 0).sum()), "probs", r(nd.probs[nd.probs > 0]))
temp = D.Categorical(logits=vocab_logits / 0.5)
print("temperature 0.5 entropy", round(temp.entropy().item(), 4), "vs", round(D.Categorical(
    logits=vocab_logits).entropy().item(), 4))

# OneHotCategoricalStraightThrough: a hard sample with the probs' gradient
lg = t([0.5, 1.5, -0.5], requires_grad=True)
st = D.OneHotCategoricalStraightThrough(logits=lg)
torch.manual_seed(2)
y = st.rsample()
print("straight-through sample", y, "has_rsample", st.has_rsample)
(y * t([1.0, 2.0, 3.0])).sum().backward()
print("straight-through grad", r(lg.grad))
oh = D.OneHotCategorical(logits=t([0.5, 1.5, -0.5]))
print("one-hot mean", r(oh.mean), "variance", r(oh.variance), "mode", oh.mode, "entropy", round(oh.entropy().item(),
                                                                                                   4))

# Multinomial: counts, log_prob, moments
mn = D.Multinomial(10, probs=t([0.2, 0.3, 0.5]))
torch.manual_seed(3)
counts = mn.sample((4,))
print("multinomial counts", counts.tolist(), "row sums", counts.sum(-1).tolist())
print("log_prob", r(mn.log_prob(counts)), "mean", r(mn.mean), "variance", r(mn.variance))
print("log_prob by hand", round((torch.lgamma(t(11.0)) - torch.lgamma(counts[0] + 1).sum() +
                                 (counts[0] * mn.probs.log()).sum()).item(), 4))
try:
    D.Multinomial(total_count=t([3, 4]), probs=t([0.5, 0.5]))
except (NotImplementedError, TypeError, ValueError) as e:
    print(type(e).__name__ + ":", e)
big = D.Multinomial(probs=t([0.5, 0.5]))
print("total_count default", big.total_count, "support", big.support)

# Binomial edges
b = D.Binomial(t([0.0, 5.0, 5.0]), probs=t([0.3, 0.0, 1.0]))
torch.manual_seed(4)
print("binomial edge samples", b.sample().tolist(), "log_prob", r(b.log_prob(t([0.0, 0.0, 5.0]))))
print("binomial mean/var", r(b.mean), r(b.variance), "mode", r(b.mode))
bl = D.Binomial(20, logits=t([-30.0, 0.0, 30.0]))
print("extreme logits log_prob", r(bl.log_prob(t([0.0, 10.0, 20.0]))))

# discrete families refuse rsample
for dist in (D.Categorical(probs=t([0.5, 0.5])), D.Poisson(t(1.0)), D.Bernoulli(t(0.5)), D.Binomial(3, t(0.5))):
    try:
        dist.rsample()
    except NotImplementedError as e:
        print(type(dist).__name__, "rsample NotImplementedError:", repr(str(e)))

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.manual_seed(5)
    sn = D.Categorical(probs=t([0.2, 0.8])).sample_n(5)
print("sample_n", sn.tolist(), "warned", [type(x.message).__name__ for x in w][:1],
      str(w[0].message) if w else None)
torch.manual_seed(5)
print("same as sample((5,))", D.Categorical(probs=t([0.2, 0.8])).sample((5,)).tolist())
print(D.Multinomial(10, probs=t([0.2, 0.8])), D.Binomial(5, t([0.2, 0.8])), D.Poisson(t([1.0])), sep="\n")
print(D.Bernoulli(logits=t([0.0])), D.Geometric(t([0.5])), D.OneHotCategorical(t([0.5, 0.5])), sep="\n")
