"""Tabular mode: a table (n_samples, n_features) is one feature graph per row."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sk_vibgsl import VIBGSLClassifier
from sk_vibgsl._inputs import is_tabular, tabular_graph_set, to_graph_set

FAST = dict(max_epochs=5, hidden_dim=8, ib_size=4, batch_size=32, random_state=0)


def _table(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] > 0).astype(int)


def test_encoding_puts_value_in_own_slot_and_feature_identity():
    X = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, 6.0]])
    g = tabular_graph_set(X)
    assert len(g) == 2 and g.sizes.tolist() == [3, 3] and g.n_features == 6
    x, edge_index, _ = g.graph(1)
    assert np.array_equal(x[:, :3], np.diag(X[1]).astype(np.float32))
    assert np.array_equal(x[:, 3:], np.eye(3, dtype=np.float32))
    assert edge_index.shape == (2, 0)


@pytest.mark.parametrize(
    "X, tabular",
    [
        (np.zeros((4, 3)), True),
        (torch.zeros(4, 3), True),
        (sp.csr_matrix(np.eye(3)), True),
        ([[1.0, 2.0], [3.0, 4.0]], True),
        ([np.ones(2), np.ones(2)], True),
        ([np.ones((2, 2)), np.ones((3, 2))], False),
        ([(np.ones((2, 2)), np.eye(2))], False),
        (np.zeros((4, 3, 2)), False),
    ],
    ids=["numpy", "torch", "sparse", "lists", "1d-rows", "matrices", "pairs", "3d"],
)
def test_rule_tells_tables_from_graph_lists(X, tabular):
    assert is_tabular(X) is tabular


def test_every_table_kind_converts_the_same():
    X = np.arange(12, dtype=float).reshape(4, 3) + 1
    ref = to_graph_set(X)
    for other in (X.tolist(), list(X), torch.as_tensor(X), sp.csr_matrix(X)):
        assert np.array_equal(to_graph_set(other).x, ref.x)


def test_table_errors_name_the_row():
    with pytest.raises(ValueError, match=r"X\[2\] contains NaN or inf"):
        to_graph_set([[1.0, 2.0], [3.0, 4.0], [np.nan, 1.0]])
    with pytest.raises(ValueError, match=r"X\[1\] has 3 features, but X\[0\] has 2"):
        to_graph_set([[1.0, 2.0], [3.0, 4.0, 5.0]])
    with pytest.raises(ValueError, match=r"X\[1\] is not a 1-D row"):
        to_graph_set([[1.0, 2.0], np.ones((2, 2))])


def test_breast_cancer_pipeline_beats_majority_by_far():
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    model = make_pipeline(
        StandardScaler(), VIBGSLClassifier(max_epochs=10, random_state=0)
    ).fit(X_tr, y_tr)
    majority = max(np.mean(y_te), 1 - np.mean(y_te))  # 0.63
    assert model.score(X_te, y_te) >= 0.9 > majority + 0.25


def test_fitted_sizes_and_ib_graphs_in_tabular_mode():
    X, y = _table(d=3)
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    assert clf.tabular_ and clf.n_features_in_ == 3 and clf.n_node_features_ == 6
    assert clf.feature_mask_.shape == (6,)
    graphs = clf.ib_graphs(X[:5])
    assert len(graphs) == 5
    for feats, adj in graphs:
        assert feats.shape == (3, 6) and adj.shape == (3, 3)
        assert np.allclose(adj, adj.T) and np.all(np.diag(adj) == 0)
    proba = clf.predict_proba(X)
    assert proba.shape == (40, 2) and np.allclose(proba.sum(1), 1)


def test_dataframe_input_keeps_column_names():
    pd = pytest.importorskip("pandas")
    X, y = _table(d=3)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    clf = VIBGSLClassifier(**FAST).fit(df, y)
    assert list(clf.feature_names_in_) == ["a", "b", "c"]
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        from_array = clf.predict_proba(X)
    assert np.allclose(clf.predict_proba(df), from_array)
    with pytest.raises(ValueError, match="feature names should match"):
        clf.predict(df.rename(columns={"a": "z"}))


def test_column_count_mismatch_raises_sklearn_error():
    X, y = _table(d=3)
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    match = "X has 4 features, but VIBGSLClassifier is expecting 3 features as input"
    with pytest.raises(ValueError, match=match):
        clf.predict(np.zeros((2, 4)))
    with pytest.raises(ValueError, match=match):
        clf.partial_fit(np.zeros((4, 4)), [0, 1, 0, 1])


def test_mode_mismatch_between_fit_and_predict_raises():
    X, y = _table(d=3)
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    with pytest.raises(ValueError, match="X is graphs, but the model was fitted on a table"):
        clf.predict([np.zeros((4, 3))])


def test_one_d_array_error_says_how_to_reshape():
    X, y = _table(d=3)
    with pytest.raises(ValueError, match=r"X is a 1-D array .*Reshape your data"):
        VIBGSLClassifier(**FAST).fit(X[:, 0], y)
    clf = VIBGSLClassifier(**FAST).fit(X, y)
    with pytest.raises(ValueError, match=r"X is a 1-D array of shape \(3,\).*X.reshape\(1, -1\)"):
        clf.predict(X[0])


def test_column_y_is_raveled_with_a_warning():
    from sklearn.exceptions import DataConversionWarning

    X, y = _table(d=3)
    with pytest.warns(DataConversionWarning):
        clf = VIBGSLClassifier(**FAST).fit(X, y.reshape(-1, 1))
    assert clf.predict(X).shape == (40,)
