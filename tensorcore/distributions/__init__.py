"""Probability distributions (``tensorcore.distributions``), as ``torch.distributions``.

Distributions: ``Normal``, ``Uniform``, ``Bernoulli``, ``Categorical``,
``MultivariateNormal``, ``Independent``, ``Beta``, ``Gamma``, ``Dirichlet``, ``Exponential``,
``Laplace``, ``Poisson``, ``Binomial``, ``OneHotCategorical``, ``Cauchy``,
``GeneralizedPareto``, ``Wishart``, ``LKJCholesky``, and, built on
:class:`TransformedDistribution`, ``LogNormal``, ``Gumbel``, ``HalfNormal``, ``HalfCauchy``,
``Pareto``, ``Weibull``, ``Kumaraswamy``, ``LogisticNormal``, ``RelaxedBernoulli`` and
``RelaxedOneHotCategorical``. Each has ``sample``/``rsample``, ``log_prob``, ``entropy``,
``mean``/``mode``/``variance``/``stddev``, batch and event shapes, ``expand``, and
``arg_constraints``/``support`` (objects of :mod:`.constraints`) that ``validate_args`` checks
with PyTorch's messages. :mod:`.transforms` holds the transforms, ``biject_to`` and
``transform_to`` map constraints to them; ``kl_divergence`` and ``register_kl`` give
closed-form KL divergences.

Normal, Uniform, Bernoulli, Categorical, LogNormal, OneHotCategorical and MultivariateNormal
sampling draws from the same streams, in the same way, as PyTorch's (MultivariateNormal
through ``randn``); Gamma, Beta, Dirichlet, Poisson and Binomial draws are exact but not
PyTorch's draws."""

import sys

from . import _kl_cross as _kl_cross  # importing it registers the cross-family KL pairs
from . import _module_paths, constraints, kl, transforms, utils
from .constraint_registry import biject_to, transform_to
from .continuous import Beta, Dirichlet, Exponential, Gamma, GeneralizedPareto, Laplace
from .derived import (
    Gumbel,
    HalfCauchy,
    HalfNormal,
    InverseGamma,
    Kumaraswamy,
    LogisticNormal,
    LogNormal,
    Pareto,
    Weibull,
)
from .discrete import (
    Binomial,
    Geometric,
    Multinomial,
    NegativeBinomial,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
    Poisson,
)
from .distribution import Distribution
from .distributions import Bernoulli, Categorical, Normal, Uniform
from .exp_family import ExponentialFamily
from .kl import kl_divergence, register_kl
from .matrix import LKJCholesky, Wishart
from .mixture import MixtureSameFamily
from .multivariate import Independent, LowRankMultivariateNormal, MultivariateNormal
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .univariate import (
    Cauchy,
    Chi2,
    ContinuousBernoulli,
    FisherSnedecor,
    StudentT,
    VonMises,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "Binomial",
    "CatTransform",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "ContinuousBernoulli",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "Dirichlet",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "IndependentTransform",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "LowerCholeskyTransform",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "StudentT",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "constraints",
    "identity_transform",
    "kl",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
    "utils",
]

# PyTorch's per-distribution module paths (``from tensorcore.distributions.normal import
# Normal``), once the names above exist.
_module_paths.install(sys.modules[__name__])
