"""Result tuples (`return_types.max`, `linalg_eigh` ...) print as PyTorch's structseqs: the qualified name,
then one `field=value` a line; they stay tuples with named fields."""

import ember.core as E


def test_values_indices_print_one_field_a_line():
    r = E.tensor([[1.0, 2.0], [3.0, 0.0]]).max(0)
    want = "torch.return_types.max(\nvalues=tensor([3., 2.]),\nindices=tensor([1, 0]))"
    assert repr(r) == str(r) == want
    values, indices = r
    assert values is r.values and indices.tolist() == [1, 0]


def test_linalg_results_carry_pytorchs_linalg_names():
    a = E.tensor([[2.0, 1.0], [1.0, 3.0]])
    assert repr(E.linalg.eigh(a)).startswith("torch.return_types.linalg_eigh(\neigenvalues=tensor(")
    assert type(E.linalg.qr(a)).__name__ == "linalg_qr" and type(E.qr(a)).__name__ == "qr"
    assert type(E.linalg.svd(a)).__name__ == "linalg_svd" and type(E.svd(a)).__name__ == "svd"
    assert type(E.linalg.eig(a)).__name__ == "linalg_eig"
    assert type(E.linalg.slogdet(a)).__name__ == "linalg_slogdet" and type(E.slogdet(a)).__name__ == "slogdet"
    assert type(a.slogdet()).__name__ == "slogdet" and E.linalg.slogdet(a).logabsdet.item() == E.slogdet(a)[1].item()
    assert repr(E.aminmax(a)) == "torch.return_types.aminmax(\nmin=tensor(1.),\nmax=tensor(3.))"
