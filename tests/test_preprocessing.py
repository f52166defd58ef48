"""DegreeFeatures and NodeFeatureTransformer: encodings, output kinds, pipelines."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import torch
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from torch_geometric.data import Data

from sk_vibgsl import DegreeFeatures, NodeFeatureTransformer, RandomWalkFeatures
from sk_vibgsl._inputs import to_graph_set

# path 0-1-2 plus the isolated node 3: degrees 1, 2, 1, 0
PATH_ADJ = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]], dtype=np.float32)
PATH_X = np.arange(8, dtype=np.float32).reshape(4, 2)
PATH_ONEHOT = np.array([[0, 1, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]], dtype=np.float32)


def _path_pair():
    return (PATH_X.copy(), PATH_ADJ.copy())


def _path_data():
    ei = torch.as_tensor(np.array(np.nonzero(PATH_ADJ)), dtype=torch.long)
    return Data(x=torch.as_tensor(PATH_X), edge_index=ei)


def _path_nx():
    g = nx.from_numpy_array(PATH_ADJ)
    for node in g.nodes:
        g.nodes[node]["x"] = PATH_X[node].copy()
    return g


def _random_graphs(n_graphs: int = 20, n_features: int = 3, seed: int = 0, loc: float = 0.0):
    rng = np.random.default_rng(seed)
    X = []
    for _ in range(n_graphs):
        n = int(rng.integers(2, 10))
        feats = (rng.normal(loc, 1.0, (n, n_features)) * [1.0, 5.0, 0.2][:n_features]).astype(
            np.float32
        )
        adj = np.triu((rng.random((n, n)) < 0.4).astype(np.float32), 1)
        X.append((feats, adj + adj.T))
    return X


# ---------------------------------------------------------------------------
# DegreeFeatures
# ---------------------------------------------------------------------------


def test_degree_onehot_on_known_graph():
    df = DegreeFeatures(mode="onehot")
    out = df.fit_transform([_path_pair()])
    assert df.mode_ == "onehot" and df.max_degree_ == 2
    np.testing.assert_array_equal(out[0][0], PATH_ONEHOT)
    assert out[0][0].dtype == np.float32


def test_degree_self_loops_are_not_counted():
    adj = PATH_ADJ.copy()
    adj[0, 0] = adj[3, 3] = 1.0
    df = DegreeFeatures(mode="onehot")
    out = df.fit_transform([(PATH_X, adj)])
    assert df.max_degree_ == 2
    np.testing.assert_array_equal(out[0][0], PATH_ONEHOT)


def test_degree_weights_do_not_change_degree():
    adj = PATH_ADJ * 3.5
    out = DegreeFeatures(mode="onehot").fit_transform([(PATH_X, adj)])
    np.testing.assert_array_equal(out[0][0], PATH_ONEHOT)


def test_degree_above_fitted_max_goes_to_last_column():
    df = DegreeFeatures(mode="onehot").fit([_path_pair()])
    star = nx.to_numpy_array(nx.star_graph(4)).astype(np.float32)  # centre degree 4
    out = df.transform([(np.zeros((5, 2), np.float32), star)])[0][0]
    assert out.shape == (5, 3)
    np.testing.assert_array_equal(out[0], [0, 0, 1])
    np.testing.assert_array_equal(out[1:], np.tile([0, 1, 0], (4, 1)))


def test_degree_explicit_max_degree_sets_width():
    df = DegreeFeatures(mode="onehot", max_degree=5).fit([_path_pair()])
    assert df.max_degree_ == 5
    out = df.transform([_path_pair()])[0][0]
    expected = np.zeros((4, 6), np.float32)
    expected[np.arange(4), [1, 2, 1, 0]] = 1
    np.testing.assert_array_equal(out, expected)


def test_degree_append_concatenates_to_features():
    df = DegreeFeatures(mode="onehot", append=True)
    out = df.fit_transform([_path_pair()])[0][0]
    np.testing.assert_array_equal(out, np.hstack([PATH_X, PATH_ONEHOT]))


def test_degree_append_rejects_other_feature_width():
    df = DegreeFeatures(mode="onehot", append=True).fit([_path_pair()])
    with pytest.raises(ValueError, match="X has 3 node features, but DegreeFeatures was fitted"):
        df.transform([(np.zeros((4, 3)), PATH_ADJ)])


def test_degree_normalized():
    df = DegreeFeatures(mode="normalized")
    out = df.fit_transform([_path_pair()])[0][0]
    d = np.array([1.0, 2.0, 1.0, 0.0])
    assert df.mean_ == pytest.approx(1.0)
    assert df.scale_ == pytest.approx(np.sqrt(0.5))
    assert out.shape == (4, 1)
    np.testing.assert_allclose(out[:, 0], (d - d.mean()) / d.std(), rtol=1e-6)


def test_degree_normalized_uses_fit_statistics_at_transform():
    df = DegreeFeatures(mode="normalized").fit([_path_pair()])
    star = nx.to_numpy_array(nx.star_graph(2)).astype(np.float32)  # degrees 2, 1, 1
    out = df.transform([(np.zeros((3, 2)), star)])[0][0]
    np.testing.assert_allclose(out[:, 0], (np.array([2, 1, 1]) - 1.0) / np.sqrt(0.5), rtol=1e-6)


def test_degree_normalized_constant_degree_has_unit_scale():
    out = DegreeFeatures(mode="normalized").fit_transform([np.ones((3, 2))])
    np.testing.assert_array_equal(out[0], np.zeros((3, 1)))


@pytest.mark.parametrize(("limit", "mode"), [(2, "normalized"), (3, "onehot"), (1000, "onehot")])
def test_degree_auto_mode_switches_at_onehot_limit(limit, mode):
    df = DegreeFeatures(mode="auto", onehot_limit=limit)
    out = df.fit_transform([_path_pair()])[0][0]
    assert df.mode_ == mode
    assert out.shape == ((4, 1) if mode == "normalized" else (4, 3))


def test_degree_invalid_mode():
    with pytest.raises(ValueError, match="mode must be 'auto', 'onehot' or 'normalized'"):
        DegreeFeatures(mode="log").fit([_path_pair()])


def test_degree_transform_before_fit():
    with pytest.raises(NotFittedError):
        DegreeFeatures().transform([_path_pair()])


# ---------------------------------------------------------------------------
# output kinds
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [DegreeFeatures, lambda: NodeFeatureTransformer(StandardScaler())],
    ids=["degree", "node-transformer"],
)
def test_output_kinds_equal_input_kinds(make):
    data, g, pair = _path_data(), _path_nx(), _path_pair()
    sparse_pair = (PATH_X.copy(), sp.csr_matrix(PATH_ADJ))
    X = [data, g, pair, sparse_pair, PATH_X.copy()]
    out = make().fit_transform(X)
    assert isinstance(out, list) and len(out) == len(X)

    assert isinstance(out[0], Data)
    assert torch.equal(out[0].edge_index, data.edge_index)
    assert out[0].x.dtype == torch.float32

    assert isinstance(out[1], nx.Graph) and out[1] is not g
    assert sorted(out[1].edges) == sorted(g.edges)
    assert list(out[1].nodes) == list(g.nodes)

    assert isinstance(out[2], tuple) and len(out[2]) == 2
    assert out[2][1] is pair[1]
    assert isinstance(out[3], tuple) and out[3][1] is sparse_pair[1]

    assert isinstance(out[4], np.ndarray) and out[4].ndim == 2

    # the new features land in each kind: they match a direct conversion
    new = to_graph_set(out)
    np.testing.assert_array_equal(new.x[:4], out[0].x.numpy())
    np.testing.assert_array_equal(new.x[4:8], np.stack([out[1].nodes[k]["x"] for k in range(4)]))
    np.testing.assert_array_equal(new.x[8:12], out[2][0])
    np.testing.assert_array_equal(new.x[16:], out[4])


def test_degree_features_replace_x_in_every_kind():
    X = [_path_data(), _path_nx(), _path_pair(), (PATH_X, sp.csr_matrix(PATH_ADJ))]
    out = DegreeFeatures(mode="onehot").fit_transform(X)
    np.testing.assert_array_equal(out[0].x.numpy(), PATH_ONEHOT)
    np.testing.assert_array_equal(np.stack([out[1].nodes[k]["x"] for k in range(4)]), PATH_ONEHOT)
    np.testing.assert_array_equal(out[2][0], PATH_ONEHOT)
    np.testing.assert_array_equal(out[3][0], PATH_ONEHOT)


def test_inputs_are_left_untouched():
    data, g, pair = _path_data(), _path_nx(), _path_pair()
    DegreeFeatures(mode="onehot").fit_transform([data, g, pair])
    np.testing.assert_array_equal(data.x.numpy(), PATH_X)
    for node in g.nodes:
        np.testing.assert_array_equal(g.nodes[node]["x"], PATH_X[node])
    np.testing.assert_array_equal(pair[0], PATH_X)


def test_pyg_output_shares_edges_and_owns_its_features():
    """A shallow copy, as PyG's transforms make: no copy of the edges."""
    data = _path_data()
    out = DegreeFeatures(mode="onehot").fit_transform([data])[0]
    assert out is not data
    assert out.edge_index.data_ptr() == data.edge_index.data_ptr()
    out.x[0, 0] = 99.0  # writing the new features leaves the input alone
    np.testing.assert_array_equal(data.x.numpy(), PATH_X)


def test_networkx_output_uses_custom_node_attr():
    g = nx.from_numpy_array(PATH_ADJ)
    for node in g.nodes:
        g.nodes[node]["feat"] = PATH_X[node]
    out = DegreeFeatures(mode="onehot", node_attr="feat").fit_transform([g])[0]
    np.testing.assert_array_equal(np.stack([out.nodes[k]["feat"] for k in range(4)]), PATH_ONEHOT)
    assert "x" not in out.nodes[0]


@pytest.mark.parametrize(
    "make",
    [DegreeFeatures, lambda: NodeFeatureTransformer(PCA(n_components=1))],
    ids=["degree", "node-transformer"],
)
def test_three_d_array_in_three_d_array_out(make):
    X = np.random.default_rng(0).normal(size=(3, 4, 2))
    out = make().fit_transform(X)
    assert isinstance(out, np.ndarray) and out.ndim == 3
    assert out.shape[:2] == (3, 4)


def test_degree_on_three_d_array_gives_zero_degrees():
    out = DegreeFeatures(mode="onehot").fit_transform(np.ones((2, 3, 2)))
    np.testing.assert_array_equal(out, np.ones((2, 3, 1)))


# ---------------------------------------------------------------------------
# NodeFeatureTransformer
# ---------------------------------------------------------------------------


def test_standard_scaler_standardises_stacked_training_nodes():
    X = _random_graphs(loc=3.0)
    out = NodeFeatureTransformer(StandardScaler()).fit_transform(X)
    stacked = np.concatenate([f for f, _ in out])
    np.testing.assert_allclose(stacked.mean(0), 0.0, atol=1e-5)
    np.testing.assert_allclose(stacked.std(0), 1.0, atol=1e-5)
    for (f_in, a_in), (f_out, a_out) in zip(X, out):
        assert f_out.shape == f_in.shape and a_out is a_in


def test_standard_scaler_uses_training_statistics_on_test_graphs():
    train, test = _random_graphs(seed=0, loc=3.0), _random_graphs(seed=1, loc=-2.0)
    nft = NodeFeatureTransformer(StandardScaler()).fit(train)
    stacked_train = np.concatenate([f for f, _ in train]).astype(np.float64)
    mean, std = stacked_train.mean(0), stacked_train.std(0)
    np.testing.assert_allclose(nft.transformer_.mean_, mean, rtol=1e-5)
    out = nft.transform(test)
    for (f_in, _), (f_out, _) in zip(test, out):
        np.testing.assert_allclose(f_out, (f_in - mean) / std, rtol=1e-4, atol=1e-5)
    # test features are not re-centred on their own statistics
    assert np.concatenate([f for f, _ in out])[:, 0].mean() < -1.0


def test_pca_changes_output_width():
    X = _random_graphs()
    nft = NodeFeatureTransformer(PCA(n_components=2))
    out = nft.fit_transform(X)
    assert nft.n_features_in_ == 3
    for (f_in, _), (f_out, _) in zip(X, out):
        assert f_out.shape == (len(f_in), 2)


def test_node_transformer_rejects_other_feature_width():
    nft = NodeFeatureTransformer(StandardScaler()).fit(_random_graphs(n_features=3))
    with pytest.raises(
        ValueError, match=r"X\[0\] has 2 node features, but the data seen in fit has 3"
    ):
        nft.transform(_random_graphs(n_features=2))


def test_node_transformer_transform_before_fit():
    with pytest.raises(NotFittedError):
        NodeFeatureTransformer(StandardScaler()).transform(_random_graphs())


def test_node_transformer_clone_and_get_params():
    nft = NodeFeatureTransformer(StandardScaler(with_mean=False), node_attr="feat")
    params = nft.get_params()
    assert isinstance(params["transformer"], StandardScaler)
    assert params["node_attr"] == "feat"
    assert params["transformer__with_mean"] is False
    cloned = clone(nft)
    assert cloned is not nft and cloned.transformer is not nft.transformer
    assert cloned.get_params()["transformer__with_mean"] is False
    nft.fit(_random_graphs())
    assert not hasattr(clone(nft), "transformer_")
    # the given transformer itself is cloned, never fitted in place
    assert not hasattr(nft.transformer, "scale_")


def test_degree_features_clone_and_get_params():
    dg = DegreeFeatures(mode="normalized", append=True)
    assert clone(dg).get_params() == dg.get_params()
    assert dg.get_params()["mode"] == "normalized"


# ---------------------------------------------------------------------------
# pipelines
# ---------------------------------------------------------------------------


def test_both_in_a_pipeline():
    X = _random_graphs(n_graphs=30)
    pipe = make_pipeline(DegreeFeatures(), NodeFeatureTransformer(StandardScaler()))
    out = pipe.fit_transform(X)
    assert isinstance(out, list) and len(out) == len(X)
    degrees = DegreeFeatures().fit(X)
    width = degrees.max_degree_ + 1
    stacked = np.concatenate([f for f, _ in out])
    assert stacked.shape == (sum(len(f) for f, _ in X), width)
    np.testing.assert_allclose(stacked.mean(0), 0.0, atol=1e-5)
    # every one-hot column that is not constant has unit variance
    onehot = np.concatenate([f for f, _ in degrees.transform(X)])
    varying = onehot.std(0) > 0
    assert varying.sum() >= 3
    np.testing.assert_allclose(stacked.std(0)[varying], 1.0, atol=1e-5)
    for (_, a_in), (_, a_out) in zip(X, out):
        assert a_out is a_in
    # and the fitted pipeline transforms new graphs to the same width
    new = pipe.transform(_random_graphs(n_graphs=5, seed=3))
    assert all(f.shape[1] == width for f, _ in new)


# ---------------------------------------------------------------- RandomWalkFeatures


def test_random_walk_features_equal_pyg_add_random_walk_pe():
    from torch_geometric.transforms import AddRandomWalkPE

    rng = np.random.default_rng(0)
    graphs = []
    for n in (6, 9, 1):
        a = np.triu(rng.random((n, n)) < 0.4, 1)
        a = (a | a.T).astype(np.float32)
        if n == 9:
            a[8, :] = a[:, 8] = 0  # an isolated node
        edge_index = torch.as_tensor(np.array(a.nonzero()), dtype=torch.long)
        graphs.append(Data(x=torch.randn(n, 2), edge_index=edge_index, num_nodes=n))
    out = RandomWalkFeatures(walk_length=5).fit(graphs).transform(graphs)
    for g, o in zip(graphs, out):
        ref = AddRandomWalkPE(walk_length=5, attr_name="pe")(g.clone()).pe
        assert o.x.shape == (g.num_nodes, 7)
        np.testing.assert_allclose(o.x[:, :2].numpy(), g.x.numpy())
        np.testing.assert_allclose(o.x[:, 2:].numpy(), ref.numpy(), atol=1e-6)


def test_random_walk_features_on_a_known_graph():
    # a 4-cycle: a walk returns only after an even number of steps; after 4,
    # along 6 of the 16 walks that go back and forth and 2 that go round
    a = np.roll(np.eye(4), 1, 1)
    a = a + a.T
    (x,) = RandomWalkFeatures(walk_length=4, append=False).fit_transform([(np.ones((4, 1)), a)])
    np.testing.assert_allclose(x[0], [[0, 0.5, 0, 0.5]] * 4, atol=1e-6)


def test_random_walk_features_errors():
    X = [(np.ones((3, 2)), np.ones((3, 3)))]
    with pytest.raises(ValueError, match="walk_length"):
        RandomWalkFeatures(walk_length=0).fit(X)
    rw = RandomWalkFeatures().fit(X)
    with pytest.raises(ValueError, match="fitted with 2"):
        rw.transform([(np.ones((3, 1)), np.ones((3, 3)))])
    with pytest.raises(NotFittedError):
        RandomWalkFeatures().transform(X)
