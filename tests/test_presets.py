"""PAPER_PARAMS reproduces the paper model of release 0.1.0 exactly."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from sk_vibgsl import PAPER_PARAMS, VIBGSLClassifier

_SCRIPT = Path(__file__).with_name("data") / "make_paper_model_outputs.py"
_spec = importlib.util.spec_from_file_location("make_paper_model_outputs", _SCRIPT)
_outputs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_outputs)


def test_paper_params_reproduce_the_release_outputs():
    expected = np.load(_outputs.OUTPUTS)
    got = _outputs.fit_outputs(**PAPER_PARAMS)
    assert set(got) == set(expected.files)
    for key in expected.files:
        # float kernels differ between CPUs (AVX2 / AVX-512): a few ulps over
        # three epochs, far below any change of the model.
        np.testing.assert_allclose(got[key], expected[key], rtol=0, atol=2e-4, err_msg=key)


def test_paper_params_are_valid_estimator_parameters():
    params = VIBGSLClassifier().get_params()
    assert set(PAPER_PARAMS) <= set(params)
    VIBGSLClassifier(**PAPER_PARAMS)._validate_hyperparameters()


@pytest.mark.parametrize(
    "option",
    [
        {"edge_score": "cosine"}, {"structure_k": 2}, {"edge_beta": 1.0}, {"readout": "sum"},
        {"num_layers": 3},
    ],
)
def test_a_structure_option_changes_the_paper_outputs(option):
    """The comparison above can fail: each option moves the outputs."""
    expected = np.load(_outputs.OUTPUTS)
    got = _outputs.fit_outputs(**{**PAPER_PARAMS, **option})
    assert not np.allclose(got["gcn_0.0_proba"], expected["gcn_0.0_proba"], atol=2e-4)
