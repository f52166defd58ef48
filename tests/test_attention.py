"""The fused attention node of the dense GAT layer (sk_vibgsl/nn/_attention.py)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from sk_vibgsl.nn._attention import attention_log_weights, edge_attention


def _inputs(seed: int = 0, b: int = 2, n: int = 7, f: int = 3):
    g = torch.Generator().manual_seed(seed)
    dst = torch.randn(b, n, generator=g, dtype=torch.float64)
    src = torch.randn(b, n, generator=g, dtype=torch.float64)
    h = torch.randn(b, n, f, generator=g, dtype=torch.float64)
    adj = torch.rand(b, n, n, generator=g, dtype=torch.float64)
    adj = adj * (torch.rand(b, n, n, generator=g, dtype=torch.float64) < 0.5)
    adj = (adj + adj.transpose(-1, -2)).triu(1) + (adj + adj.transpose(-1, -2)).tril(-1)
    adj[0, 1, 1] = 0.3  # one existing self-loop
    return dst, src, h, adj


def _reference(dst, src, log_w, h, slope=0.2):
    e = F.leaky_relu(dst.unsqueeze(-1) + src.unsqueeze(-2), slope)
    return torch.softmax(e + log_w, -1) @ h


def _log_weights_reference(adj):
    """The unrolled formula: log of adj with missing self-loops, -inf off the edges."""
    missing = adj.diagonal(dim1=-2, dim2=-1) == 0
    w = adj + torch.diag_embed(missing.to(adj.dtype))
    return torch.where(w > 0, torch.log(w.clamp(min=1e-30)), -torch.inf)


def _edge_cases(adj):
    adj = adj.clone()
    adj[1, 2, 3] = -0.5  # a negative weight is no edge
    adj[1, 3, 2] = 1e-35  # below the clamp: an edge of weight 1e-30, no gradient
    return adj


def test_log_weights_equal_the_unrolled_formula_in_value():
    *_, adj = _inputs()
    adj = _edge_cases(adj)
    before = adj.clone()
    got = attention_log_weights(adj)
    assert torch.equal(got, _log_weights_reference(adj))
    # missing self-loops weigh 1 (log 0); the existing one keeps its weight
    assert got[0, 1, 1] == torch.log(torch.tensor(0.3, dtype=adj.dtype))
    assert got[0, 0, 0] == 0.0
    assert got[1, 2, 3] == -torch.inf
    assert torch.equal(adj, before)  # the input is not modified


def test_log_weights_gradient_equals_the_unrolled_formula():
    *_, adj = _inputs(5)
    adj = _edge_cases(adj)
    g = torch.randn(adj.shape, generator=torch.Generator().manual_seed(0), dtype=adj.dtype)
    grads = []
    for fn in (attention_log_weights, _log_weights_reference):
        a = adj.clone().requires_grad_()
        out = fn(a)
        (torch.where(torch.isinf(out), 0.0, out) * g).sum().backward()
        grads.append(a.grad)
    got, want = grads
    assert torch.isfinite(got).all()
    assert torch.allclose(got, want, rtol=1e-12, atol=0)
    assert (got[0].diagonal() != 0).all()  # missing self-loops pass 1 / (0 + 1)
    assert got[1, 2, 3] == 0 and got[1, 3, 2] == 0


def test_log_weights_pass_gradcheck_on_positive_weights():
    *_, adj = _inputs(6)
    a = (adj + 0.2).requires_grad_()
    assert torch.autograd.gradcheck(attention_log_weights, [a])


@pytest.mark.parametrize("slope", [0.2, 0.01])
def test_edge_attention_equals_unfused_softmax_in_value(slope):
    dst, src, h, adj = _inputs(1)
    log_w = attention_log_weights(adj)
    got = edge_attention(dst, src, log_w, h, slope)
    assert torch.allclose(got, _reference(dst, src, log_w, h, slope), atol=1e-12)


def test_edge_attention_gradients_pass_gradcheck_including_log_weights():
    dst, src, h, adj = _inputs(2)
    log_w = torch.log(adj + 0.1)  # finite, so the numerical gradient exists everywhere
    args = [t.clone().requires_grad_() for t in (dst, src, log_w, h)]
    assert torch.autograd.gradcheck(lambda *a: edge_attention(*a, 0.2), args)


def test_edge_attention_gradients_with_constant_log_weights_off_the_edges():
    # The observed graph: log_w holds -inf and needs no gradient, so the
    # backward pass works in place; the other gradients must still be exact.
    dst, src, h, adj = _inputs(3)
    log_w = attention_log_weights(adj)
    assert torch.isinf(log_w).any()
    args = [t.clone().requires_grad_() for t in (dst, src, h)]
    assert torch.autograd.gradcheck(
        lambda d, s, x: edge_attention(d, s, log_w, x, 0.2), args
    )


def test_edge_attention_backward_twice_with_retained_graph():
    # The backward pass must not overwrite what it saved.
    dst, src, h, adj = _inputs(4)
    log_w = attention_log_weights(adj)
    args = [t.clone().requires_grad_() for t in (dst, src, h)]
    out = edge_attention(args[0], args[1], log_w, args[2])
    grads1 = torch.autograd.grad(out.square().sum(), args, retain_graph=True)
    grads2 = torch.autograd.grad(out.square().sum(), args)
    for a, b in zip(grads1, grads2):
        assert torch.equal(a, b)
