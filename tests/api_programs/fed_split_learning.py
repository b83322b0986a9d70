"""Split learning between a client and a server: the client's smashed activations cross the cut as
detach().requires_grad_(), the server backpropagates to them and sends the cut-layer gradient back, and the client
finishes with backward(gradient); U-shaped splits keep the labels on the client, and the whole exchange is
compared with ordinary end-to-end training."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
client_net = nn.Sequential(nn.Conv1d(2, 4, 3, padding=1), nn.ReLU(), nn.Flatten())
server_net = nn.Sequential(nn.Linear(4 * 8, 16), nn.ReLU(), nn.Linear(16, 3))
ref_client, ref_server = copy.deepcopy(client_net), copy.deepcopy(server_net)
X = torch.randn(12, 2, 8)
Y = torch.randint(0, 3, (12,))
c_opt = torch.optim.Adam(client_net.parameters(), lr=0.01)
s_opt = torch.optim.Adam(server_net.parameters(), lr=0.01)
r_opt = torch.optim.Adam(list(ref_client.parameters()) + list(ref_server.parameters()), lr=0.01)

for step in range(4):
    c_opt.zero_grad()
    s_opt.zero_grad()
    smashed = client_net(X)
    sent = smashed.detach().requires_grad_()
    if step == 0:
        print("cut", sent.is_leaf, sent.requires_grad, sent.grad_fn, smashed.grad_fn.name())
    loss = F.cross_entropy(server_net(sent), Y)
    loss.backward()
    cut_grad = sent.grad.clone()
    s_opt.step()
    smashed.backward(cut_grad)
    c_opt.step()

    r_opt.zero_grad()
    ref_loss = F.cross_entropy(ref_server(ref_client(X)), Y)
    ref_loss.backward()
    r_opt.step()
    print(
        "step",
        step,
        round(loss.item(), 4),
        round(ref_loss.item(), 4),
        "cut grad norm",
        round(cut_grad.norm().item(), 4),
    )
print(
    "same as end-to-end",
    all(torch.allclose(a, b, atol=1e-6) for a, b in zip(client_net.parameters(), ref_client.parameters())),
)

# U-shaped: client holds the head and the labels
head = nn.Linear(3, 3)
h_opt = torch.optim.SGD(head.parameters(), lr=0.1)
body = nn.Linear(4 * 8, 3)
b_opt = torch.optim.SGD(body.parameters(), lr=0.1)
for step in range(3):
    a = client_net(X).detach()
    a_srv = a.clone().requires_grad_(True)
    z = body(a_srv)
    z_cli = z.detach().requires_grad_(True)
    loss = F.cross_entropy(head(z_cli), Y)
    h_opt.zero_grad()
    loss.backward()
    h_opt.step()
    b_opt.zero_grad()
    torch.autograd.backward(z, grad_tensors=z_cli.grad)
    b_opt.step()
    print(
        "u-shape",
        step,
        round(loss.item(), 4),
        "a_srv grad",
        tuple(a_srv.grad.shape),
        round(a_srv.grad.abs().sum().item(), 4),
    )

g = torch.autograd.grad(body(a_srv).sum(), a_srv)[0]
print("autograd.grad at cut", g.shape, round(g[0, :3].sum().item(), 4))
t = torch.ones(3, requires_grad=True) * 2
t.retain_grad()
(t**2).sum().backward()
print("retain_grad", t.grad.tolist(), t.is_leaf)
x = torch.randn(3)
x.requires_grad_()
x.requires_grad_(False)
print("toggle", x.requires_grad)

try:
    smashed = client_net(X)
    smashed.backward()
except Exception as e:
    print(type(e).__name__, e)
try:
    client_net(X).backward(torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    y = client_net(X)
    y.requires_grad_(False)
except Exception as e:
    print(type(e).__name__, str(e)[:160])
try:
    torch.ones(2, dtype=torch.long).requires_grad_()
except Exception as e:
    print(type(e).__name__, e)
try:
    sent = client_net(X).detach()
    sent.sum().backward()
except Exception as e:
    print(type(e).__name__, e)
