"""Online, task-free continual learning with Maximally Interfered Retrieval (MIR): a virtual SGD step evaluated
through torch.func.functional_call, replay candidates ranked by their loss increase with topk and gathered with
index_select, loss-plateau detection for consolidation windows, and the argument mistakes PyTorch's parser
rejects in such buffer code (lists for index tensors, float dims, x together with dx)."""

import torch
from torch.func import functional_call

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
mem_x, mem_y = torch.empty(0, 5), torch.empty(0, dtype=torch.long)
capacity, n_cand, n_pick, lr_virtual = 40, 12, 4, 0.05
window, losses, plateaus = 5, [], []
gen = torch.Generator().manual_seed(11)

stream = []
for t in range(4):
    xs = torch.randn(60, 5) + torch.tensor([2.0 * t, 0, 0, 0, -t])
    ys = (xs[:, 1] > 0).long() + 2 * (t % 2)
    stream.append((xs, ys))

for t, (xs, ys) in enumerate(stream):
    for i in range(0, 60, 6):
        xb, yb = xs[i : i + 6], ys[i : i + 6]
        loss_new = F.cross_entropy(model(xb), yb)
        if mem_x.shape[0] >= n_cand:
            params = dict(model.named_parameters())
            grads = torch.autograd.grad(loss_new, list(params.values()), retain_graph=True)
            virtual = {n: p - lr_virtual * g for (n, p), g in zip(params.items(), grads)}
            cand = torch.randperm(mem_x.shape[0], generator=gen)[:n_cand]
            cx, cy = mem_x.index_select(0, cand), mem_y.index_select(0, cand)
            with torch.no_grad():
                before = F.cross_entropy(model(cx), cy, reduction="none")
                after = F.cross_entropy(functional_call(model, virtual, (cx,)), cy, reduction="none")
            scores = after - before
            top = scores.topk(n_pick).indices
            rx, ry = cx.index_select(0, top), cy.index_select(0, top)
            loss = loss_new + F.cross_entropy(model(rx), ry)
        else:
            loss = loss_new
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss_new.item())
        if len(losses) >= 2 * window:
            recent = torch.tensor(losses[-window:])
            prev = torch.tensor(losses[-2 * window : -window])
            if recent.mean() < prev.mean() and recent.std() < 0.1:
                plateaus.append(len(losses))
        if mem_x.shape[0] < capacity:
            mem_x, mem_y = torch.cat([mem_x, xb]), torch.cat([mem_y, yb])
        else:
            slots = torch.randint(0, capacity, (xb.shape[0],), generator=gen)
            mem_x = mem_x.index_copy(0, slots[:1], xb[:1])
            mem_y = mem_y.index_copy(0, slots[:1], yb[:1])
    with torch.no_grad():
        accs = [round((model(x).argmax(1) == y).float().mean().item(), 4) for x, y in stream[: t + 1]]
    print(
        f"segment {t}: loss={losses[-1]:.4f} mem={tuple(mem_x.shape)} labels={torch.bincount(mem_y, minlength=4).tolist()} accs={accs}"  # noqa: E501
    )

print("plateaus:", plateaus[:5], len(plateaus))
print("last scores:", scores.round(decimals=4).tolist()[:6], "picked:", top.tolist())
curve = torch.tensor(losses)
print(
    "loss curve area:",
    round(torch.trapezoid(curve, dx=0.1).item(), 4),
    round(torch.trapezoid(curve, x=torch.linspace(0, 1, curve.numel())).item(), 4),
)
print("cum area tail:", torch.cumulative_trapezoid(curve[-4:]).round(decimals=4).tolist())
g = torch.cat([p.grad.flatten() for p in model.parameters()])
print("grad dot self:", round(torch.dot(g, g).item(), 4), round(g.dot(g).item(), 4), round(torch.inner(g, g).item(), 4))
acc = torch.zeros(4).index_add_(0, mem_y, torch.ones(mem_y.numel()), alpha=0.5)
print("index_add alpha:", acc.tolist())
print(
    "concatenate:",
    torch.concatenate([mem_y[:2], mem_y[-2:]], axis=0).tolist(),
    torch.concat((mem_y[:1], mem_y[:1]), dim=0).tolist(),
)

for bad in [
    lambda: mem_x.index_select(0, [0, 1]),
    lambda: torch.index_select(mem_x, 0, index=[0]),
    lambda: mem_x.index_select("0", torch.tensor([0])),
    lambda: torch.dot(g, g.tolist()),
    lambda: g.dot(tensor=None),
    lambda: mem_y.index_copy(0, [0], mem_y[:1]),
    lambda: torch.zeros(4).index_add_(0, mem_y, torch.ones(mem_y.numel()), alpha="half"),
    lambda: torch.cat([mem_x, mem_x], 0.0),
    lambda: torch.cat([mem_x, mem_x], dim=1.0),
    lambda: torch.cat([mem_x, mem_x], 0, None, 1),
    lambda: torch.trapezoid(curve, x=torch.arange(curve.numel()).float(), dx=0.1),
    lambda: torch.trapz(curve, torch.arange(curve.numel()).float(), dx=0.1),
    lambda: torch.trapezoid(curve, dx=None),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
