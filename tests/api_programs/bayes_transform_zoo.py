"""Transform algebra for change-of-variables VI: compose, invert, log-det, event dims and reprs."""

import torch

D = torch.distributions
T = torch.distributions.transforms


def r(t):
    return t.detach().round(decimals=4).tolist()


torch.manual_seed(0)
x = torch.randn(2, 3)

ts = [
    T.ExpTransform(),
    T.AffineTransform(loc=1.0, scale=-2.0),
    T.SigmoidTransform(),
    T.TanhTransform(),
    T.SoftplusTransform(),
    T.PowerTransform(exponent=torch.tensor(3.0)),
    T.AbsTransform(),
]
for t in ts:
    y = t(x)
    print(
        repr(t),
        t.domain,
        t.codomain,
        t.bijective,
        t.sign if t.bijective and not isinstance(t, T.PowerTransform) else "-",
    )
    print("  y", r(y))
    if t.bijective:
        print("  inv", r(t.inv(y)), "ladj", r(t.log_abs_det_jacobian(x, y)))

comp = T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.SigmoidTransform()])
print(comp, comp.event_dim, comp.inv)
y = comp(x)
print("compose", r(y), r(comp.log_abs_det_jacobian(x, y)))
print("compose inv", r(comp.inv(y)))
print("inv of inv", comp.inv.inv is comp)
print("eq", T.ExpTransform() == T.ExpTransform(), T.ExpTransform() == T.SigmoidTransform())

# simplex reparameterisation used for Dirichlet posteriors
sb = T.StickBreakingTransform()
z = torch.tensor([[0.3, -1.2, 0.4], [0.0, 0.0, 0.0]])
p = sb(z)
print("stick", r(p), r(p.sum(-1)), p.shape)
print("stick inv", r(sb.inv(p)), "ladj", r(sb.log_abs_det_jacobian(z, p)))
print("stick shapes", sb.forward_shape((5, 3)), sb.inverse_shape((5, 4)), sb.domain.event_dim, sb.codomain)
sm = T.SoftmaxTransform()
print("softmax", r(sm(z)), sm.codomain)

# correlation Cholesky factors (LKJ posteriors)
cc = T.CorrCholeskyTransform()
v = torch.tensor([0.5, -0.3, 0.8])
Lc = cc(v)
print("corr chol", r(Lc), r((Lc @ Lc.T).diagonal()))
print("corr inv", r(cc.inv(Lc)), "ladj", round(cc.log_abs_det_jacobian(v, Lc).item(), 4))

# event-level transforms
it = T.IndependentTransform(T.ExpTransform(), 1)
print(it, it.event_dim, r(it.log_abs_det_jacobian(x, it(x))))
rt = T.ReshapeTransform((6,), (2, 3))
print(rt(torch.arange(6.0)).shape, rt.inv(torch.zeros(2, 3)).shape, rt.forward_shape((4, 6)))
cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(0.0, 3.0)], dim=0, lengths=[1, 1])
print("cat", r(cat(x[:, 0])), r(cat.log_abs_det_jacobian(x[:, 0], cat(x[:, 0]))))
st = T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=1)
xs = torch.randn(3, 2)
print("stack", r(st(xs)), r(st.log_abs_det_jacobian(xs, st(xs))))

# constraint registries map constrained parameters to unconstrained space
for c in [
    D.constraints.positive,
    D.constraints.unit_interval,
    D.constraints.simplex,
    D.constraints.lower_cholesky,
    D.constraints.interval(-1.0, 2.0),
    D.constraints.greater_than(3.0),
]:
    print(c, "->", D.transform_to(c))
    try:
        print("  biject", D.biject_to(c))
    except NotImplementedError as e:
        print("  biject", type(e).__name__, e)
u = torch.tensor([0.2, -0.7])
print("interval", r(D.transform_to(D.constraints.interval(-1.0, 2.0))(u)))
print("lower_chol", r(D.transform_to(D.constraints.lower_cholesky)(torch.tensor([[0.1, 5.0], [0.3, -0.2]]))))
try:
    D.biject_to(D.constraints.integer_interval(0, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    D.TransformedDistribution(D.Normal(0.0, 1.0), [T.StickBreakingTransform()])
except Exception as e:
    print(type(e).__name__, e)
