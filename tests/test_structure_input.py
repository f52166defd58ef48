"""structure_input="observed": the learner reads the observed GNN's first hidden layer."""

from __future__ import annotations

import pytest
import torch
from conftest import dense_batch as _batch

from sk_vibgsl import LEARNED_CHANNEL_PARAMS, VIBGSLClassifier
from sk_vibgsl.nn import VIBGSLModule, gcn_norm
from sk_vibgsl.nn.sparse_model import sparse_ib_graph


def _model(backbone="gcn", num_layers=2, **kwargs):
    torch.manual_seed(0)
    return VIBGSLModule(5, 2, hidden_dim=8, ib_size=3, backbone=backbone, num_layers=num_layers,
                        observed_branch=True, structure_input="observed", **kwargs)


@pytest.mark.parametrize("backbone", ["gcn", "gin", "gat"])
@pytest.mark.parametrize("num_layers", [2, 3])
def test_first_hidden_then_the_other_layers_is_the_whole_backbone(backbone, num_layers):
    x, mask, adj = _batch()
    gnn = _model(backbone, num_layers).observed_gnn.eval()
    h = x @ gnn.conv1.first_weight.T
    norm = gnn.graph_norm(adj)
    split = gnn.from_first_hidden(gnn.first_hidden(h, adj, mask, norm), adj, mask, norm)
    torch.testing.assert_close(split, gnn.forward_projected(h, adj, mask), rtol=0, atol=0)


@pytest.mark.parametrize("backbone", ["gcn", "gin", "gat"])
def test_the_learner_scores_pairs_from_the_observed_gnns_first_hidden_layer(backbone):
    """A = learner(ReLU(f_obs,1(X_IB, A_obs))); the pooled vector is still
    R(f_obs(X_IB, A_obs)) + alpha R(f(X_IB, A))."""
    x, mask, adj = _batch()
    model = _model(backbone, edge_score="cosine", structure_k=3).eval()
    assert model.structure.lin1.in_features == 8  # the hidden width, not the 5 features
    with torch.no_grad():
        model.branch_gate.fill_(0.7)
        mu, *_ = model.encode(x, mask, adj)
        x_ib, a = model.ib_graph(x, mask, adj)
        obs = model.observed_gnn
        if backbone == "gcn":  # the first layer written out
            conv = obs.conv1
            h1 = torch.relu((gcn_norm(adj) @ conv.lin(x_ib) + conv.bias) * mask.unsqueeze(-1))
        else:
            h1 = obs.first_hidden(x_ib @ obs.conv1.first_weight.T, adj, mask,
                                  obs.graph_norm(adj))
        expected_a = model.structure(h1, mask)
        pooled = (obs(x_ib, adj, mask).sum(-2) + 0.7 * model.gnn(x_ib, a, mask).sum(-2)) / mask.sum(
            -1, keepdim=True
        )
    torch.testing.assert_close(a, expected_a)
    torch.testing.assert_close(mu, pooled[:, :3])


def test_alike_nodes_in_unlike_places_no_longer_tie():
    """On a path 0-1-2-3 with one feature vector for all four nodes, the
    feature-reading learner gives every pair one logit; the observed-reading
    one tells the ends from the middle."""
    x = torch.ones(1, 4, 5)
    mask = torch.ones(1, 4, dtype=torch.bool)
    adj = torch.zeros(1, 4, 4)
    for u in range(3):
        adj[0, u, u + 1] = adj[0, u + 1, u] = 1.0
    off = ~torch.eye(4, dtype=torch.bool)
    with torch.no_grad():
        torch.manual_seed(0)
        features = VIBGSLModule(5, 2, hidden_dim=8, observed_branch=True).eval()
        logits = features.structure.edge_logits(features.feature_mask(x, mask))[0][off]
        assert torch.allclose(logits, logits[0].expand_as(logits))
        model = _model().eval()
        obs = model.observed_gnn
        x_ib = model.feature_mask(x, mask)
        h1 = obs.first_hidden(x_ib @ obs.conv1.first_weight.T, adj, mask, obs.graph_norm(adj))
        logits = model.structure.edge_logits(h1)[0]
    assert logits[0, 3] != logits[1, 2]  # the two ends against the two middle nodes


@pytest.mark.parametrize("through", ["edge_kl", "ib_graph"])
def test_the_learners_gradient_reaches_the_observed_gnns_first_layer_only(through):
    """The structure's own KL term (a function of the learned logits alone)
    and the shown IB-graph both differentiate into the observed GNN's first
    layer, and not beyond it."""
    x, mask, adj = _batch()
    model = _model(temperature=1.0, edge_prior=0.05)
    if through == "edge_kl":
        model.encode(x, mask, adj)[2].sum().backward()
    else:
        model.ib_graph(x, mask, adj)[1].sum().backward()
    obs = model.observed_gnn
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in obs.conv1.parameters())
    assert all(p.grad is None for p in obs.conv2.parameters())


def test_every_parameter_trains_once_the_gate_is_open():
    x, mask, adj = _batch()
    model = _model(temperature=1.0, edge_score="cosine", structure_k=3)
    with torch.no_grad():
        model.branch_gate.fill_(0.5)
    model(x, mask, adj)[0].pow(2).sum().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


def test_features_input_is_todays_module():
    x, mask, adj = _batch()
    torch.manual_seed(0)
    today = VIBGSLModule(5, 2, hidden_dim=8, observed_branch=True, edge_score="cosine",
                         structure_k=3).eval()
    torch.manual_seed(0)
    features = VIBGSLModule(5, 2, hidden_dim=8, observed_branch=True, edge_score="cosine",
                            structure_k=3, structure_input="features").eval()
    for (name, p), q in zip(today.named_parameters(), features.parameters(), strict=True):
        assert torch.equal(p, q), name
    torch.testing.assert_close(features(x, mask, adj)[0], today(x, mask, adj)[0], rtol=0, atol=0)


def test_bad_values_and_combinations_are_refused_naming_structure_input(graphs):
    with pytest.raises(ValueError, match="structure_input must be one of"):
        VIBGSLModule(5, 2, observed_branch=True, structure_input="hidden")
    for branch in (False, "shared"):
        with pytest.raises(ValueError, match="structure_input='observed'.*observed_branch=True"):
            VIBGSLModule(5, 2, observed_branch=branch, structure_input="observed")
    with pytest.raises(ValueError, match="structure_input='observed' runs on the dense path"):
        VIBGSLModule(5, 2, observed_branch=True, structure_input="observed", graph_path="sparse")
    X, y = graphs
    for bad, match in [({"structure_input": 1}, "structure_input must be one of"),
                       ({"structure_input": "observed"}, "needs observed_branch=True"),
                       ({**LEARNED_CHANNEL_PARAMS, "structure_input": "observed",
                         "graph_path": "sparse"}, "dense path only")]:
        with pytest.raises(ValueError, match=match):
            VIBGSLClassifier(max_epochs=1, **bad).fit(X, y)


def test_the_sparse_path_refuses_it_and_auto_stays_dense():
    x, mask, adj = _batch(sizes=(300, 280))
    model = _model(edge_score="cosine", structure_k=3)
    assert not model.uses_sparse_path(mask)  # 300 nodes: all-pairs top-k would go sparse
    assert VIBGSLModule(5, 2, observed_branch=True, edge_score="cosine",
                        structure_k=3).uses_sparse_path(mask)
    with pytest.raises(ValueError, match="dense path only"):
        sparse_ib_graph(model, x, mask, adj=adj)


def test_fits_predicts_and_shows_its_graphs(graphs):
    X, y = graphs
    clf = VIBGSLClassifier(**LEARNED_CHANNEL_PARAMS, structure_input="observed", max_epochs=3,
                           random_state=0).fit(X, y)
    assert clf.get_params()["structure_input"] == "observed"
    assert clf.module_.structure.lin1.in_features == clf.hidden_dim
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    assert 0 < clf.history[-1, "train_density"] < 1
    _, learned = clf.ib_graphs(X[:1])[0]
    assert learned.shape == (len(X[0][0]),) * 2
