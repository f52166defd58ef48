"""The torch modules: reference checks, padding, batch independence, gradients."""

from __future__ import annotations

import copy

import pytest
import torch
from torch_geometric.nn import GATConv, GCNConv

from sk_vibgsl.nn import (
    Backbone,
    DenseGATLayer,
    DenseGCNLayer,
    DenseGINLayer,
    StructureLearner,
    VIBGSLModule,
    concrete_bernoulli,
    gaussian_parameters,
    gcn_norm,
    kl_to_standard_normal,
    threshold_adjacency,
)
from sk_vibgsl.nn.sparse_backbones import edge_graph, sparse_backbone

BACKBONES = ["gcn", "gat", "gin"]


def _random_graph(n: int, f: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, f, generator=g)
    w = torch.rand(n, n, generator=g) * (torch.rand(n, n, generator=g) < 0.4)
    adj = torch.triu(w, 1)
    return x, adj + adj.T


def _pad(x: torch.Tensor, adj: torch.Tensor, n_total: int):
    n, f = x.shape
    xp = torch.zeros(1, n_total, f)
    xp[0, :n] = x
    ap = torch.zeros(1, n_total, n_total)
    ap[0, :n, :n] = adj
    mask = torch.zeros(1, n_total, dtype=torch.bool)
    mask[0, :n] = True
    return xp, ap, mask


def test_dense_gcn_matches_pyg_gcnconv_on_weighted_graph():
    x, adj = _random_graph(9, 5)
    adj[2, 2] = 0.7  # an existing self-loop keeps its weight, as in GCNConv
    conv = GCNConv(5, 3)
    dense = DenseGCNLayer(5, 3)
    with torch.no_grad():
        dense.lin.weight.copy_(conv.lin.weight)
        dense.bias.copy_(conv.bias.detach().normal_())
        conv.bias.copy_(dense.bias)
    edge_index = adj.nonzero().T
    edge_weight = adj[edge_index[0], edge_index[1]]
    expected = conv(x, edge_index, edge_weight)
    mask = torch.ones(1, 9, dtype=torch.bool)
    got = dense(x.unsqueeze(0), gcn_norm(adj.unsqueeze(0)), mask)[0]
    assert torch.allclose(got, expected, atol=1e-5)


def test_dense_gat_matches_pyg_gatconv_on_unweighted_graph():
    x, adj = _random_graph(9, 5)
    adj = (adj > 0).float()
    adj[2, 2] = 1.0  # an existing self-loop counts once, as GATConv's re-added one
    conv = GATConv(5, 3, heads=1)
    dense = DenseGATLayer(5, 3)
    with torch.no_grad():
        dense.lin.weight.copy_(conv.lin.weight)
        dense.att_src.copy_(conv.att_src.view(-1))
        dense.att_dst.copy_(conv.att_dst.view(-1))
        dense.bias.normal_()
        conv.bias.copy_(dense.bias)
    expected = conv(x, adj.nonzero().T)
    got = dense(x.unsqueeze(0), adj.unsqueeze(0), torch.ones(1, 9, dtype=torch.bool))[0]
    assert torch.allclose(got, expected, atol=1e-5)


def _gat_reference(layer, x, adj, mask):
    """The weighted attention as a softmax of ``e + log Ã`` (-inf off the edges)."""
    h = layer.lin(x)
    e = torch.nn.functional.leaky_relu(
        (h @ layer.att_dst).unsqueeze(-1) + (h @ layer.att_src).unsqueeze(-2), 0.2)
    loops = torch.diag_embed((adj.diagonal(dim1=-2, dim2=-1) == 0).float())
    w = adj + loops
    log_w = torch.where(w > 0, torch.log(w.clamp(min=1e-30)), torch.full_like(w, -torch.inf))
    out = torch.softmax(e + log_w, -1) @ h + layer.bias
    return out * mask.unsqueeze(-1)


@pytest.mark.parametrize("scale", [1.0, 1e3], ids=["unit features", "features 1e3"])
def test_dense_gat_equals_softmax_of_scores_plus_log_weights(scale):
    # Weighted, padded, one existing self-loop; at scale 1e3 the scores span
    # thousands, where exp without the row maximum would overflow.
    x, adj = _random_graph(8, 4, seed=3)
    adj[1, 1] = 0.4
    xp, ap, mask = _pad(x * scale, adj, 11)
    xp, ap = torch.cat([xp, xp.flip(1)]), torch.cat([ap, ap.flip(1, 2)])
    mask = torch.cat([mask, mask.flip(1)])
    layer = DenseGATLayer(4, 6)
    with torch.no_grad():
        layer.bias.normal_()
    grads = []
    for fn in (layer, lambda *a: _gat_reference(layer, *a)):
        xg, ag = xp.clone().requires_grad_(), ap.clone().requires_grad_()
        out = fn(xg, ag, mask)
        out.square().sum().backward()
        grads.append((out.detach(), xg.grad, ag.grad))
    (got, gx, ga), (want, wx, wa) = grads
    assert torch.isfinite(got).all()
    # float32 rounding of scores in the thousands: tolerances relative to the largest entry
    assert torch.allclose(got, want, rtol=1e-4, atol=1e-5 * want.abs().max())
    assert torch.allclose(gx, wx, rtol=1e-3, atol=1e-3 * wx.abs().max())
    if scale == 1.0:  # at 1e3 the attention saturates: both give rounding noise for A
        edges = (ap > 0) | torch.eye(11, dtype=torch.bool)  # where the reference has a gradient
        assert wa[edges].abs().max() > 0.1
        assert torch.allclose(ga[edges], wa[edges], rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("num_layers", [2, 4])
@pytest.mark.parametrize("kind", BACKBONES)
def test_padded_nodes_change_nothing_and_stay_zero(kind, num_layers):
    x, adj = _random_graph(6, 4)
    net = Backbone(kind, 4, 8, 5, num_layers=num_layers)
    out_small = net(*_pad(x, adj, 6))
    out_padded = net(*_pad(x, adj, 11))
    assert torch.allclose(out_padded[0, :6], out_small[0], atol=1e-5)
    assert torch.all(out_padded[0, 6:] == 0)


@pytest.mark.parametrize("kind", BACKBONES)
def test_deeper_backbone_composes_its_layers_with_relus(kind):
    """num_layers=3: conv1 → ReLU → hidden layer → ReLU → conv2, each on the same graph."""
    x, adj = _random_graph(7, 4)
    xp, ap, mp = _pad(x, adj, 9)
    net = Backbone(kind, 4, 8, 5, batch_norm=kind == "gin", num_layers=3).eval()
    assert [type(c) for c in net.layers] == [type(net.conv1)] * 3
    assert net.conv1 is net.layers[0] and net.conv2 is net.layers[-1]
    if kind == "gcn":
        graph = gcn_norm(ap)
    else:
        graph = ap
    h = torch.relu(net.conv1(xp, graph, mp))
    h = torch.relu(net.hidden_convs[0](h, graph, mp))
    want = net.conv2(h, graph, mp)
    assert torch.allclose(net(xp, ap, mp), want, atol=1e-5)


def test_extra_layers_keep_the_two_layer_weights_and_widen_the_receptive_field():
    torch.manual_seed(0)
    two = Backbone("gcn", 3, 8, 4)
    torch.manual_seed(0)
    four = Backbone("gcn", 3, 8, 4, num_layers=4)
    assert len(four.hidden_convs) == 2 and len(two.hidden_convs) == 0
    for name in ("conv1", "conv2"):
        for a, b in zip(getattr(two, name).parameters(), getattr(four, name).parameters()):
            assert torch.equal(a, b)
    # a path 0 - 1 - ... - 6: node 0's output sees node L's features, not node L + 1's
    n = 7
    adj = torch.zeros(1, n, n)
    idx = torch.arange(n - 1)
    adj[0, idx, idx + 1] = adj[0, idx + 1, idx] = 1.0
    mask = torch.ones(1, n, dtype=torch.bool)
    for net, depth in ((two, 2), (four, 4)):
        x = torch.randn(1, n, 3, requires_grad=True)
        net(x, adj, mask)[0, 0].sum().backward()
        reach = x.grad[0].abs().sum(-1) > 0
        assert reach[: depth + 1].all() and not reach[depth + 1 :].any()


def test_every_layer_of_a_deep_backbone_gets_a_gradient():
    x, adj = _random_graph(8, 4)
    xp, ap, mp = _pad(x, adj, 8)
    model = VIBGSLModule(4, 3, num_layers=4, structure_mix=0.5)
    logits, kl, *_ = model(xp, mp, ap)
    (logits.pow(2).sum() + kl.sum()).backward()
    gnn = {n: p.grad for n, p in model.gnn.named_parameters()}
    assert any(n.startswith("hidden_convs.1.") for n in gnn)
    for name, grad in gnn.items():
        assert grad is not None and grad.abs().sum() > 0, name


@pytest.mark.parametrize("kind", ["gcn", "gin"])
def test_a_second_graph_adds_gated_messages_to_every_layer_and_none_at_gate_zero(kind):
    """``learned = (alpha, a)``: each layer's aggregation gains ``alpha · a h``
    (GCN after its linear map, GIN inside its MLP), on the dense and the sparse
    path alike; at ``alpha = 0`` the output is exactly the one-graph output."""
    x, adj = _random_graph(7, 4)
    _, a = _random_graph(7, 4, seed=1)
    xp, ap, mp = _pad(x, adj, 9)
    a = _pad(x, a, 9)[1]
    net = Backbone(kind, 4, 8, 5, num_layers=3).eval()
    h0 = xp @ net.conv1.first_weight.T
    zero = torch.zeros(())
    assert torch.equal(net.forward_projected(h0, ap, mp, (zero, a)), net(xp, ap, mp))
    gate = torch.tensor(0.6)
    h = xp
    for i, conv in enumerate(net.layers):
        if kind == "gcn":
            hw = conv.lin(h)
            h = gcn_norm(ap) @ hw + gate * (a @ hw) + conv.bias
        else:
            h = conv.mlp((1 + conv.eps) * h + ap @ h + gate * (a @ h))
        h = h * mp.unsqueeze(-1)
        if i < 2:
            h = torch.relu(h)
    got = net.forward_projected(h0, ap, mp, (gate, a))
    assert torch.allclose(got, h, atol=1e-5)
    real = mp[0]
    sparse = sparse_backbone(net, h0[0, real], _edges(ap[0, real][:, real]),
                             (gate, _edges(a[0, real][:, real])))
    assert torch.allclose(sparse, got[0, real], atol=1e-5)


def test_a_second_graph_is_refused_for_gat():
    x, adj = _random_graph(5, 4)
    xp, ap, mp = _pad(x, adj, 5)
    net = Backbone("gat", 4, 8, 5)
    learned = (torch.tensor(0.5), ap)
    with pytest.raises(ValueError, match="needs one of"):
        net.forward_projected(xp @ net.conv1.first_weight.T, ap, mp, learned)
    with pytest.raises(ValueError, match="needs one of"):
        sparse_backbone(net, x @ net.conv1.first_weight.T, _edges(adj),
                        (learned[0], _edges(adj)))


def _edges(adj: torch.Tensor):
    """The ``EdgeGraph`` of one dense ``n × n`` adjacency."""
    index = adj.nonzero().T
    return edge_graph(index, adj[index[0], index[1]], adj.shape[0])


@pytest.mark.parametrize("bad", [1, 0, 2.5, True, "3"])
def test_backbone_refuses_a_bad_num_layers(bad):
    with pytest.raises(ValueError, match="num_layers"):
        Backbone("gcn", 3, 8, 4, num_layers=bad)
    with pytest.raises(ValueError, match="num_layers"):
        VIBGSLModule(3, 2, num_layers=bad)


@pytest.mark.parametrize("kind", BACKBONES)
def test_model_output_ignores_padding_in_eval(kind):
    x, adj = _random_graph(7, 3)
    model = VIBGSLModule(3, 2, backbone=kind, structure_mix=0.3).eval()
    xs, as_, ms = _pad(x, adj, 7)
    xp, ap, mp = _pad(x, adj, 15)
    logits_s, kl_s, *_ = model(xs, ms, as_)
    logits_p, kl_p, *_ = model(xp, mp, ap)
    assert torch.allclose(logits_s, logits_p, atol=1e-5)
    assert torch.allclose(kl_s, kl_p, atol=1e-4)


@pytest.mark.parametrize("kind", BACKBONES)
def test_prediction_does_not_depend_on_batch_companions(kind):
    graphs = [_random_graph(n, 3, seed=n) for n in (4, 9, 6)]
    model = VIBGSLModule(3, 2, backbone=kind).eval()
    n_max = 9
    padded = [_pad(x, a, n_max) for x, a in graphs]
    batch = [torch.cat(parts) for parts in zip(*padded)]
    logits_batch = model(batch[0], batch[2], batch[1])[0]
    for k, (x, a) in enumerate(graphs):
        xs, as_, ms = _pad(x, a, len(x))
        alone = model(xs, ms, as_)[0]
        assert torch.allclose(logits_batch[k], alone[0], atol=1e-5)


@pytest.mark.parametrize("kind", BACKBONES)
def test_gradients_reach_every_structure_learner_parameter(kind):
    x, adj = _random_graph(10, 4)
    model = VIBGSLModule(4, 3, backbone=kind).train()
    xp, ap, mp = _pad(x, adj, 12)
    logits, kl, *_ = model(xp, mp)
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor([1])) + 1e-3 * kl.mean()
    loss.backward()
    for name, p in model.structure.named_parameters():
        assert p.grad is not None, name
        assert p.grad.abs().sum() > 0, name
    assert model.feature_mask.logits.grad.abs().sum() > 0


def test_learned_adjacency_symmetric_in_unit_interval_no_diagonal_no_padding():
    x = torch.randn(2, 8, 5)
    mask = torch.ones(2, 8, dtype=torch.bool)
    mask[1, 5:] = False
    learner = StructureLearner(5, 16, temperature=0.1, threshold=0.1)
    for training in (True, False):
        learner.train(training)
        adj = learner(x, mask)
        assert torch.allclose(adj, adj.transpose(-1, -2))
        assert adj.min() >= 0 and adj.max() <= 1
        assert torch.all(adj.diagonal(dim1=-2, dim2=-1) == 0)
        assert torch.all(adj[1, 5:] == 0) and torch.all(adj[1, :, 5:] == 0)
        kept = adj[adj > 0]
        assert torch.all(kept >= 0.1)


def test_eval_structure_is_pi_thresholded_without_noise():
    x = torch.randn(1, 6, 3)
    mask = torch.ones(1, 6, dtype=torch.bool)
    learner = StructureLearner(3, 8, threshold=0.3).eval()
    pi = torch.sigmoid(learner.edge_logits(x))
    expected = pi * (pi >= 0.3)
    expected = expected * (1 - torch.eye(6))
    assert torch.allclose(learner(x, mask), expected)
    assert torch.equal(learner(x, mask), learner(x, mask))


def test_concrete_sample_mean_approaches_pi_at_low_temperature():
    logits = torch.tensor([[0.0, -1.5, 2.0], [-1.5, 0.0, 0.5], [2.0, 0.5, 0.0]])
    draws = concrete_bernoulli(logits.expand(20000, 3, 3), temperature=0.05)
    assert torch.allclose(draws, draws.transpose(-1, -2))
    pi = torch.sigmoid(logits)
    off_diag = ~torch.eye(3, dtype=torch.bool)
    assert torch.allclose(draws.mean(0)[off_diag], pi[off_diag], atol=0.02)


def test_threshold_keeps_gradient_of_kept_entries():
    adj = torch.tensor([0.05, 0.5, 0.9], requires_grad=True)
    out = threshold_adjacency(adj, 0.1)
    out.sum().backward()
    assert out.tolist() == [0.0, 0.5, 0.8999999761581421]
    assert adj.grad.tolist() == [0.0, 1.0, 1.0]


@pytest.mark.parametrize("k", [1, 16, 256])
def test_kl_is_finite_and_non_negative(k):
    h = torch.cat([torch.randn(5, k) * 10, torch.full((5, k), -1e4)], dim=1)
    mu, sigma = gaussian_parameters(h, k)
    kl = kl_to_standard_normal(mu, sigma)
    assert kl.shape == (5,)
    assert torch.all(torch.isfinite(kl)) and torch.all(kl >= 0)
    model = VIBGSLModule(3, 2, ib_size=k).eval()
    _, kl_model, *_ = model(torch.randn(2, 4, 3) * 100, torch.ones(2, 4, dtype=torch.bool))
    assert torch.all(torch.isfinite(kl_model)) and torch.all(kl_model >= 0)


def test_kl_matches_torch_distributions():
    mu, raw = torch.randn(4, 6), torch.randn(4, 6)
    _, sigma = gaussian_parameters(torch.cat([mu, raw], 1), 6)
    q = torch.distributions.Normal(mu, sigma)
    p = torch.distributions.Normal(torch.zeros(6), torch.ones(6))
    expected = torch.distributions.kl_divergence(q, p).sum(-1)
    assert torch.allclose(kl_to_standard_normal(mu, sigma), expected, rtol=1e-4, atol=1e-4)


def test_eval_forward_is_deterministic_and_train_forward_is_not():
    x, adj = _random_graph(8, 3)
    xp, ap, mp = _pad(x, adj, 8)
    model = VIBGSLModule(3, 2).eval()
    assert torch.equal(model(xp, mp)[0], model(xp, mp)[0])
    model.train()
    assert not torch.equal(model(xp, mp)[0], model(xp, mp)[0])


def test_structure_mix_one_uses_only_observed_graph():
    model = VIBGSLModule(3, 2, structure_mix=1.0).eval()
    assert model.structure is None
    x, adj = _random_graph(5, 3)
    xp, ap, mp = _pad(x, adj, 5)
    _, a = model.ib_graph(xp, mp, ap)
    assert torch.equal(a, ap)
    with pytest.raises(ValueError, match="observed adjacency"):
        model(xp, mp)


@pytest.mark.parametrize("lam", [0.0, 0.3, 1.0])
def test_sum_readout_is_the_mean_readout_times_the_node_count(lam):
    """readout="sum" pools sum_v h_v: the same weights give mu = n * mu_mean per
    graph (padding excluded), and the logits differ."""
    x, adj, mask = _two_graph_batch(10)
    torch.manual_seed(0)
    mean = VIBGSLModule(4, 2, structure_mix=lam).eval()
    torch.manual_seed(0)
    summed = VIBGSLModule(4, 2, structure_mix=lam, readout="sum").eval()
    mu_mean, *_ = mean.encode(x, mask, adj)
    mu_sum, *_ = summed.encode(x, mask, adj)
    n_nodes = mask.sum(-1, keepdim=True).float()  # 5 and 8, padded to 10
    assert n_nodes.flatten().tolist() == [5.0, 8.0]
    torch.testing.assert_close(mu_sum, mu_mean * n_nodes)
    assert not torch.allclose(summed(x, mask, adj)[0], mean(x, mask, adj)[0])


def test_sum_readout_ignores_padding():
    x, adj = _random_graph(7, 3)
    model = VIBGSLModule(3, 2, structure_mix=0.3, readout="sum").eval()
    logits_s, kl_s, *_ = model(*_pad_args(x, adj, 7))
    logits_p, kl_p, *_ = model(*_pad_args(x, adj, 15))
    torch.testing.assert_close(logits_s, logits_p, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(kl_s, kl_p, atol=1e-4, rtol=1e-5)


def test_module_refuses_an_unknown_readout():
    with pytest.raises(ValueError, match="readout must be one of"):
        VIBGSLModule(3, 2, readout="max")


def _pad_args(x: torch.Tensor, adj: torch.Tensor, n_total: int):
    """``(x, mask, adj)`` in the module's argument order."""
    xp, ap, mp = _pad(x, adj, n_total)
    return xp, mp, ap


def _two_graph_batch(n_total: int):
    graphs = [_random_graph(n, 4, seed=n) for n in (5, 8)]
    padded = [_pad(x, a, n_total) for x, a in graphs]
    return [torch.cat(parts) for parts in zip(*padded)]


def test_gin_batch_norm_normalises_over_real_nodes_only():
    torch.manual_seed(0)
    layer = DenseGINLayer(4, 6, batch_norm=True).train()
    x, adj, mask = _two_graph_batch(12)
    out = layer(x, adj, mask)
    real = out[mask]
    assert torch.allclose(real.mean(0), torch.zeros(6), atol=1e-5)
    assert torch.allclose(real.var(0, unbiased=False), torch.ones(6), atol=1e-3)
    assert torch.all(out[~mask] == 0)


def test_gin_batch_norm_padding_changes_neither_output_nor_running_statistics():
    torch.manual_seed(0)
    tight = Backbone("gin", 4, 8, 5, batch_norm=True).train()
    loose = copy.deepcopy(tight)
    x, adj, mask = _two_graph_batch(8)
    xl, adjl, maskl = _two_graph_batch(13)
    out_tight, out_loose = tight(x, adj, mask), loose(xl, adjl, maskl)
    assert torch.allclose(out_loose[:, :8], out_tight, atol=1e-5)
    assert torch.all(out_loose[:, 8:] == 0)
    for a, b in zip(tight.buffers(), loose.buffers()):
        assert torch.allclose(a.float(), b.float(), atol=1e-6)
    # Evaluation uses the running statistics: a graph's embedding no longer
    # depends on the rest of its batch.
    tight.eval()
    batch = tight(x, adj, mask)
    alone = tight(x[1:], adj[1:], mask[1:])
    assert torch.allclose(batch[1:], alone, atol=1e-5)


def test_gin_batch_norm_trains_on_a_single_node_batch_without_updating_statistics():
    layer = DenseGINLayer(3, 4, batch_norm=True).train()
    x, adj, mask = _pad(torch.randn(1, 3), torch.zeros(1, 1), 3)
    out = layer(x, adj, mask)
    assert torch.isfinite(out).all() and torch.all(out[0, 1:] == 0)
    assert torch.equal(layer.norm.running_mean, torch.zeros(4))


def test_gin_batch_norm_passes_gradients_to_the_structure_learner():
    x, adj = _random_graph(10, 4)
    model = VIBGSLModule(4, 3, backbone="gin", batch_norm=True).train()
    xp, _, mp = _pad(x, adj, 12)
    logits, kl, *_ = model(torch.cat([xp, xp.flip(1)]), torch.cat([mp, mp.flip(1)]))
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor([1, 0])) + 1e-3 * kl.mean()
    loss.backward()
    for name, p in model.structure.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, name


@pytest.mark.parametrize("kind", ["gcn", "gat"])
def test_batch_norm_is_refused_for_backbones_other_than_gin(kind):
    with pytest.raises(ValueError, match="batch_norm=True needs the 'gin' backbone"):
        VIBGSLModule(3, 2, backbone=kind, batch_norm=True)
