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


def test_built_from_one_sequence_as_pytorchs_structseq_and_pickled_by_name():
    """PyTorch's structseq takes its fields as one sequence and counts them in `n_fields`; every class is in the one
    `return_types` namespace, so a result pickles by its name wherever its op is defined."""
    import pickle

    import pytest

    from ember.core.ops.structseq import return_types

    v, i = E.tensor([3.0, 2.0]), E.tensor([1, 0])
    r = return_types.min((v, i))
    assert r.values is v and r.indices is i and return_types.min(v, i) == r
    rt = return_types.max
    assert (rt.n_fields, rt.n_sequence_fields, rt.n_unnamed_fields) == (2, 2, 0)
    with pytest.raises(TypeError, match=r"takes a 2-sequence \(3-sequence given\)"):
        return_types.min((v, i, v))
    with pytest.raises(TypeError, match="^constructor requires a sequence$"):
        return_types.max(1, 2)
    for res in (E.tensor([[1.0, 2.0]]).max(1), E.linalg.qr(E.eye(2)), E.frexp(v), E.histogram(v, 2)):
        back = pickle.loads(pickle.dumps(res))
        assert type(back) is type(res) and getattr(return_types, type(res).__name__) is type(res)
        assert [t.tolist() for t in back] == [t.tolist() for t in res]


def test_no_namedtuple_extras_as_pytorchs_structseq():
    """PyTorch's result classes are structseqs, not namedtuples: no `_fields`, `_asdict`, `_replace`, `_make`
    (generic `hasattr(x, "_fields")` code takes its tuple branch), and `__match_args__` names the fields."""
    import copy

    r = E.tensor([[1.0, 3.0], [2.0, 0.0]]).max(0)
    assert not any(hasattr(r, a) for a in ("_fields", "_asdict", "_replace", "_make"))
    assert [a for a in dir(r) if not a.startswith("__")] == ["count", "index", "indices", "n_fields",
                                                             "n_sequence_fields", "n_unnamed_fields", "values"]
    assert type(r).__match_args__ == ("values", "indices") and isinstance(r, tuple) and len(r) == 2
    assert r[0] is r.values and r[-1] is r.indices and type(r[:1]) is tuple
    assert type(r)(((1, 2), {})[0], {}) == (1, 2) and type(copy.deepcopy(r)) is type(r)
    out = (E.empty(0), E.empty(0, dtype=E.int64))
    assert type(E.max(E.ones(2, 2), 1, out=out)).__name__ == "max_out"  # PyTorch 2.13's, rebuilt over `out`
