"""The first-layer product on mostly-zero node features: the sparse route's
choice, its values and gradients, and the model's output through it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl.nn import VIBGSLModule, _feature_product
from sk_vibgsl.nn._feature_product import feature_product, uses_sparse_product


def _one_hot(rows: int, d: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch.zeros(rows, d)
    x[torch.arange(rows), torch.randint(d, (rows,), generator=g)] = 1.0
    return x


def _sparse_product_calls(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = torch.sparse.mm

    def spy(a, b):
        calls.append(a.shape[0])
        return real(a, b)

    monkeypatch.setattr(torch.sparse, "mm", spy)
    return calls


def test_one_hot_rows_take_the_sparse_route_with_exact_values_and_gradients(monkeypatch):
    calls = _sparse_product_calls(monkeypatch)
    x = _one_hot(500, 300)
    w = torch.randn(64, 300, requires_grad=True)
    got = feature_product(x, w)
    assert calls == [500]
    expected = x @ w.T
    assert torch.equal(got, expected)  # a single nonzero term per dot product
    (grad,) = torch.autograd.grad((got * expected.detach().cos()).sum(), w)
    (grad_dense,) = torch.autograd.grad((expected * expected.detach().cos()).sum(), w)
    torch.testing.assert_close(grad, grad_dense)


def test_sparse_rows_with_several_values_match_the_dense_product():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(400, 1000, generator=g) * (torch.rand(400, 1000, generator=g) < 0.003)
    w = torch.randn(40, 1000, generator=g, requires_grad=True)
    assert uses_sparse_product(x, 40)
    got = feature_product(x, w)
    torch.testing.assert_close(got, x @ w.T)
    (grad,) = torch.autograd.grad(got.square().sum(), w)
    (grad_dense,) = torch.autograd.grad((x @ w.T).square().sum(), w)
    torch.testing.assert_close(grad, grad_dense)


@pytest.mark.parametrize(
    "case",
    [
        "dense features",
        "few feature columns",
        "few output columns",
        "features need a gradient",
        "float16",
        "no rows",
    ],
)
def test_dense_route_where_the_sparse_one_does_not_pay_or_cannot_run(case, monkeypatch):
    calls = _sparse_product_calls(monkeypatch)
    d = 400
    x, out = _one_hot(300, d), 64
    narrowest = min(width for width, _, _ in _feature_product.SPARSE_ROUTES)
    if case == "dense features":
        x = torch.randn(300, d)
    elif case == "few feature columns":
        d = narrowest - 1
        x = torch.zeros(300, d)
        x[:, 0] = 1.0
        x[3:] = 0.0  # density well below every route's bound, but too narrow
    elif case == "few output columns":
        out = min(o for _, o, _ in _feature_product.SPARSE_ROUTES) - 1
    elif case == "features need a gradient":
        x.requires_grad_(True)
    elif case == "float16":
        x = x.half()
    else:
        x = x[:0]
    w = torch.randn(out, d, dtype=x.dtype)
    assert not uses_sparse_product(x, out)
    got = feature_product(x, w)
    assert calls == []
    assert torch.equal(got, x @ w.T)


@pytest.mark.parametrize(
    ("d", "out", "ones_per_row", "sparse"),
    [
        (400, 32, 1, True),  # wide route: density 0.0025
        (400, 32, 3, False),  # 0.0075: above 0.005; too few outputs for 0.01
        (400, 64, 3, True),  # the narrower route allows 0.01 from 64 outputs
        (136, 64, 1, True),  # IMDB-BINARY's one-hot degrees under the default's two weights
        (136, 32, 1, False),  # too few outputs for 136 columns
        (136, 96, 2, False),  # density 0.0147: above every route
        (127, 96, 1, False),  # too few columns for either route
    ],
)
def test_routes_by_columns_outputs_and_density(d, out, ones_per_row, sparse):
    x = torch.zeros(1000, d)
    x[:, :ones_per_row] = 1.0
    assert uses_sparse_product(x, out) is sparse


def test_density_is_read_from_about_256_evenly_spaced_rows():
    x = torch.zeros(1000, 400)
    x[::3, :6] = 1.0  # 0.015 in the sampled rows (every third), 0.005 over all rows
    assert not uses_sparse_product(x, 64)
    x = torch.zeros(1000, 400)
    x[1::3, :6] = 1.0  # the same density over all rows, none in the sample
    assert uses_sparse_product(x, 64)


@pytest.mark.parametrize("graph_path", ["dense", "sparse"])
@pytest.mark.parametrize("feature_mask", [True, False])
@pytest.mark.parametrize("training", [True, False])
def test_model_output_and_gradients_are_those_of_the_dense_product(
    graph_path, feature_mask, training, monkeypatch
):
    """One-hot degree features (as COLLAB's) through the whole module: the
    sparse route changes nothing but the speed."""
    b, n, d = 3, 12, 400
    x = torch.stack([_one_hot(n, d, seed) for seed in range(b)])
    mask = torch.ones(b, n, dtype=torch.bool)
    mask[1, 9:] = False
    mask[2, 5:] = False
    x = x * mask.unsqueeze(-1)
    adj = (torch.rand(b, n, n, generator=torch.Generator().manual_seed(3)) < 0.3).float()
    adj = torch.triu(adj, 1)
    adj = (adj + adj.transpose(1, 2)) * mask.unsqueeze(1) * mask.unsqueeze(2)
    torch.manual_seed(0)
    module = VIBGSLModule(
        d, 2, hidden_dim=16, feature_mask=feature_mask, graph_path=graph_path
    ).train(training)

    def run():
        module.zero_grad()
        torch.manual_seed(5)
        logits, kl, _, _ = module(x, mask, adj)
        (logits.square().sum() + kl.sum()).backward()
        return logits.detach(), {k: p.grad.clone() for k, p in module.named_parameters()
                                 if p.grad is not None}

    calls = _sparse_product_calls(monkeypatch)
    logits, grads = run()
    assert calls, "the one-hot features should take the sparse route"
    monkeypatch.setattr(_feature_product, "SPARSE_ROUTES", ())
    calls.clear()
    logits_dense, grads_dense = run()
    assert calls == []
    torch.testing.assert_close(logits, logits_dense)
    assert grads.keys() == grads_dense.keys()
    for name in grads:
        torch.testing.assert_close(grads[name], grads_dense[name], msg=name)


def _listed_module_batch(b: int = 4, n: int = 12, d: int = 300, extra: bool = False):
    """A padded batch of one-hot rows (``extra``: some rows with a second,
    non-unit value, one node and one whole graph without any)."""
    x = torch.stack([_one_hot(n, d, seed) for seed in range(b)])
    if extra:
        g = torch.Generator().manual_seed(9)
        x[0, 2, 7] = 0.5
        x[2, 1, (x[2, 1].argmax() + 3) % d] = -1.25
        x[1, 4] = 0.0
        x[3] = torch.rand(n, d, generator=g).lt(0.01).float() * 2.5
        x[3, :, :] = 0.0
    mask = torch.ones(b, n, dtype=torch.bool)
    mask[1, 9:] = False
    mask[2, 5:] = False
    x = x * mask.unsqueeze(-1)
    return x, mask


def _listing(x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``feature_index``/``feature_value`` of a padded batch, built as
    GraphDataset lists them (position i·d + j, rows padded with zeros)."""
    b, n, d = x.shape
    per_graph = [x[k].reshape(-1).nonzero().squeeze(1) for k in range(b)]
    width = max(max(len(p) for p in per_graph), 1)
    index = torch.zeros(b, width, dtype=torch.int32)
    value = torch.zeros(b, width)
    for k, pos in enumerate(per_graph):
        index[k, :len(pos)] = pos.to(torch.int32)
        value[k, :len(pos)] = x[k].reshape(-1)[pos]
    return index, value


@pytest.mark.parametrize("extra", [False, True])
def test_batch_feature_matrix_is_the_padded_features(extra):
    x, mask = _listed_module_batch(extra=extra)
    b, n, d = x.shape
    listed = _feature_product.batch_feature_matrix(*_listing(x, mask), n, d)
    assert listed.is_coalesced() and listed.shape == (b * n, d)
    assert torch.equal(listed.to_dense(), x.reshape(b * n, d))
    assert listed._nnz() == int(torch.count_nonzero(x))


@pytest.mark.parametrize("graph_path", ["dense", "sparse"])
@pytest.mark.parametrize("feature_mask", [True, False])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("extra", [False, True])
def test_listed_features_give_the_outputs_and_gradients_of_x(
    graph_path, feature_mask, training, extra, monkeypatch
):
    """The module reads a batch's listed nonzero features instead of ``x``:
    the same logits, KL and density (bit for bit on one-hot rows), the same
    gradients up to rounding, the same random draws."""
    x, mask = _listed_module_batch(extra=extra)
    b, n, d = x.shape
    adj = (torch.rand(b, n, n, generator=torch.Generator().manual_seed(3)) < 0.3).float()
    adj = torch.triu(adj, 1)
    adj = (adj + adj.transpose(1, 2)) * mask.unsqueeze(1) * mask.unsqueeze(2)
    index, value = _listing(x, mask)
    torch.manual_seed(0)
    module = VIBGSLModule(
        d, 2, hidden_dim=16, feature_mask=feature_mask, graph_path=graph_path,
        observed_branch=True, edge_score="cosine", structure_k=3,
    ).train(training)

    def run(**listed):
        module.zero_grad()
        torch.manual_seed(5)
        logits, kl, edge_kl, density = module(x, mask, adj, **listed)
        (logits.square().sum() + kl.sum()).backward()
        grads = {k: p.grad.clone() for k, p in module.named_parameters() if p.grad is not None}
        return (logits.detach(), kl.detach(), density), grads, torch.rand(())

    calls = _sparse_product_calls(monkeypatch)
    out, grads, after = run(feature_index=index, feature_value=value)
    assert calls and all(rows == b * n for rows in calls), "the listed matrix is multiplied"
    monkeypatch.setattr(_feature_product, "SPARSE_ROUTES", ())  # x densely
    calls.clear()
    out_x, grads_x, after_x = run()
    assert calls == []
    assert torch.equal(after, after_x)  # the same random numbers were drawn
    for got, expected in zip(out, out_x):
        if extra:
            torch.testing.assert_close(got, expected)
        else:  # one nonzero per row: each product is a single term, either way
            assert torch.equal(got, expected)
    assert grads.keys() == grads_x.keys()
    for name in grads:  # weight gradients sum over the rows in another order
        torch.testing.assert_close(grads[name], grads_x[name], msg=name)


def test_listed_features_are_not_used_off_cpu_or_without_both_parts():
    x, mask = _listed_module_batch()
    index, value = _listing(x, mask)
    assert _feature_product.listed_features(x, None, value) is None
    assert _feature_product.listed_features(x, index, None) is None
    assert _feature_product.listed_features(x.to("meta"), index, value) is None
    assert _feature_product.listed_features(x, index, value) is not None


def _one_hot_graphs(count: int = 40, d: int = 160):
    rng = np.random.default_rng(0)
    X, y = [], []
    for k in range(count):
        n = int(rng.integers(4, 12))
        feats = np.zeros((n, d), dtype=np.float32)
        feats[np.arange(n), rng.integers(0, 40 if k % 2 else d, n)] = 1.0
        adj = np.triu((rng.random((n, n)) < 0.4).astype(np.float32), 1)
        X.append((feats, adj + adj.T))
        y.append(k % 2)
    return X, y


class _NotListing(VIBGSLClassifier):
    @property
    def _lists_features(self):
        return False


def test_classifier_lists_one_hot_features_on_cpu_and_predicts_as_without():
    X, y = _one_hot_graphs()
    NotListing = _NotListing
    params = dict(max_epochs=3, batch_size=8, random_state=0, observed_branch=True,
                  edge_score="cosine", structure_k=3)
    listing = VIBGSLClassifier(**params).fit(X, y)
    plain = NotListing(**params).fit(X, y)
    assert listing.get_dataset(X).lists_features
    assert not plain.get_dataset(X).lists_features
    np.testing.assert_allclose(listing.predict_proba(X), plain.predict_proba(X), atol=1e-4)
    for key in ("train_loss", "train_density"):
        np.testing.assert_allclose(listing.history[:, key], plain.history[:, key], rtol=1e-4)


@pytest.mark.parametrize("classifier", [VIBGSLClassifier, _NotListing])
def test_sparse_products_train_under_bfloat16_autocast(classifier):
    # autocast ran the sparse product in bfloat16 and its backward failed
    # ("expected scalar type Float but found BFloat16"), listed or converted
    X, y = _one_hot_graphs()
    clf = classifier(max_epochs=2, batch_size=8, random_state=0, precision="bf16").fit(X, y)
    assert np.isfinite(clf.history[:, "train_loss"]).all()
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(1), 1.0, rtol=1e-5)


def test_lists_features_with_device_none_and_not_for_a_custom_module():
    # device=None (skorch: move nothing) keeps the CPU data; a module that is not a
    # VIBGSLModule gets the batches it always got
    X, y = _one_hot_graphs(count=12)
    clf = VIBGSLClassifier(max_epochs=1, batch_size=4, random_state=0, device=None).fit(X, y)
    assert clf.get_dataset(X).lists_features
    assert clf.predict(X).shape == (12,)

    class Custom(VIBGSLModule):
        pass

    custom = VIBGSLClassifier(module=lambda **kw: Custom(**kw), max_epochs=1)
    assert not custom._lists_features
    assert not VIBGSLClassifier(device="cuda")._lists_features
