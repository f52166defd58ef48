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


def test_log_weights_are_the_same_with_and_without_gradient():
    *_, adj = _inputs()
    adj[1, 2, 3] = -0.5  # a negative weight is no edge, in both branches
    expected = attention_log_weights(adj.clone().requires_grad_()).detach()
    got = attention_log_weights(adj)
    assert torch.equal(torch.isinf(got), torch.isinf(expected))
    assert torch.equal(got, expected)
    # missing self-loops weigh 1 (log 0); the existing one keeps its weight
    assert got[0, 1, 1] == torch.log(torch.tensor(0.3, dtype=adj.dtype))
    assert got[0, 0, 0] == 0.0
    assert got[1, 2, 3] == -torch.inf
    assert adj[0, 0, 0] == 0.0  # the input is not modified


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
