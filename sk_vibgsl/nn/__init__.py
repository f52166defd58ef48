"""Torch modules of VIB-GSL on padded dense batches (``B × N × F``)."""

from .backbones import Backbone, DenseGATLayer, DenseGCNLayer, DenseGINLayer, gcn_norm
from .model import VIBGSLModule
from .selection import tie_start, tie_tolerance, top_k_lowest, top_k_mask, top_k_pairs
from .structure import (
    FeatureMask,
    StructureLearner,
    candidate_pairs,
    concrete_bernoulli,
    edge_density,
    edge_kl_to_prior,
    threshold_adjacency,
)
from .vib import gaussian_parameters, kl_to_standard_normal, reparameterize

__all__ = [
    "Backbone",
    "DenseGATLayer",
    "DenseGCNLayer",
    "DenseGINLayer",
    "FeatureMask",
    "StructureLearner",
    "VIBGSLModule",
    "candidate_pairs",
    "concrete_bernoulli",
    "edge_density",
    "edge_kl_to_prior",
    "gaussian_parameters",
    "gcn_norm",
    "kl_to_standard_normal",
    "reparameterize",
    "threshold_adjacency",
    "tie_start",
    "tie_tolerance",
    "top_k_lowest",
    "top_k_mask",
    "top_k_pairs",
]
