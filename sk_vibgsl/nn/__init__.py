"""Torch modules of VIB-GSL on padded dense batches (``B × N × F``)."""

from .backbones import Backbone, DenseGATLayer, DenseGCNLayer, DenseGINLayer, gcn_norm
from .model import VIBGSLModule
from .structure import FeatureMask, StructureLearner, concrete_bernoulli, threshold_adjacency
from .vib import gaussian_parameters, kl_to_standard_normal, reparameterize

__all__ = [
    "Backbone",
    "DenseGATLayer",
    "DenseGCNLayer",
    "DenseGINLayer",
    "FeatureMask",
    "StructureLearner",
    "VIBGSLModule",
    "concrete_bernoulli",
    "gaussian_parameters",
    "gcn_norm",
    "kl_to_standard_normal",
    "reparameterize",
    "threshold_adjacency",
]
