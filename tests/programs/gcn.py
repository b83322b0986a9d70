"""Semi-supervised node classification with a two-layer graph convolutional network (Kipf & Welling, as in
pygcn): the normalized adjacency is a sparse COO tensor, propagation is `torch.spmm` / `torch.sparse.mm`,
the weights are Parameters trained by Adam on a few labelled nodes of a planted-partition graph."""

import math

import numpy as np
import scipy.sparse as sp
import torch
import torch.nn as nn
import torch.nn.functional as F

np.random.seed(0)
torch.manual_seed(0)
n_per, n_classes, n_feats = 40, 3, 16
n = n_per * n_classes
labels_np = np.repeat(np.arange(n_classes), n_per)
same = labels_np[:, None] == labels_np[None, :]
edges = np.random.rand(n, n) < np.where(same, 0.15, 0.01)
adj = sp.coo_matrix(np.triu(edges, 1))
adj = adj + adj.T + sp.eye(n)
deg = np.asarray(adj.sum(1)).ravel()
d = sp.diags(deg ** -0.5)
adj = (d @ adj @ d).tocoo().astype(np.float32)


def sparse_mx_to_torch_sparse_tensor(mx):
    indices = torch.from_numpy(np.vstack((mx.row, mx.col)).astype(np.int64))
    return torch.sparse_coo_tensor(indices, torch.from_numpy(mx.data), torch.Size(mx.shape))


adj = sparse_mx_to_torch_sparse_tensor(adj)
assert adj.is_sparse and adj.layout == torch.sparse_coo and adj.shape == (n, n)
centers = np.random.randn(n_classes, n_feats)
features = torch.from_numpy((centers[labels_np] + 2.0 * np.random.randn(n, n_feats)).astype(np.float32))
labels = torch.from_numpy(labels_np)
idx_train = torch.from_numpy(np.concatenate([np.arange(c * n_per, c * n_per + 5) for c in range(n_classes)]))
idx_test = torch.from_numpy(np.setdiff1d(np.arange(n), idx_train.numpy()))


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        stdv = 1.0 / math.sqrt(out_features)
        self.weight.data.uniform_(-stdv, stdv)
        self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        return torch.spmm(adj, torch.mm(input, self.weight)) + self.bias


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(torch.sparse.mm(adj, x @ self.gc2.weight) + self.gc2.bias, dim=1)


model = GCN(n_feats, 16, n_classes, 0.5)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
losses = []
for epoch in range(100):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss = F.nll_loss(output[idx_train], labels[idx_train])
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
model.eval()
with torch.no_grad():
    output = model(features, adj)
acc = (output[idx_test].argmax(1) == labels[idx_test]).float().mean().item()
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}, test accuracy {acc:.2f}")
assert losses[-1] < 0.5 * losses[0], losses
assert acc > 0.8, acc
print("OK")
