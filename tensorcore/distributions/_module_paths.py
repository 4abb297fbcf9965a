"""PyTorch's one-module-per-distribution import paths (``torch.distributions.normal``,
``torch.distributions.categorical``...), which programs import from
(``from torch.distributions.categorical import Categorical``).

The distributions are grouped by kind here (:mod:`.distributions`, :mod:`.univariate`...), so
each of PyTorch's paths is a small module object, made once at import, that holds the names
PyTorch's module of that name exports, registered in ``sys.modules`` and as an attribute of
the package.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from . import relaxed

#: PyTorch's module name -> the names its ``__all__`` holds. (The modules PyTorch and
#: tensorcore both have as files, ``kl``, ``constraints``, ``transforms``..., are not here.)
MODULES: dict[str, tuple[str, ...]] = {
    "bernoulli": ("Bernoulli",),
    "beta": ("Beta",),
    "binomial": ("Binomial",),
    "categorical": ("Categorical",),
    "cauchy": ("Cauchy",),
    "chi2": ("Chi2",),
    "continuous_bernoulli": ("ContinuousBernoulli",),
    "dirichlet": ("Dirichlet",),
    "exponential": ("Exponential",),
    "fishersnedecor": ("FisherSnedecor",),
    "gamma": ("Gamma",),
    "generalized_pareto": ("GeneralizedPareto",),
    "geometric": ("Geometric",),
    "gumbel": ("Gumbel",),
    "half_cauchy": ("HalfCauchy",),
    "half_normal": ("HalfNormal",),
    "independent": ("Independent",),
    "inverse_gamma": ("InverseGamma",),
    "kumaraswamy": ("Kumaraswamy",),
    "laplace": ("Laplace",),
    "lkj_cholesky": ("LKJCholesky",),
    "log_normal": ("LogNormal",),
    "logistic_normal": ("LogisticNormal",),
    "lowrank_multivariate_normal": ("LowRankMultivariateNormal",),
    "mixture_same_family": ("MixtureSameFamily",),
    "multinomial": ("Multinomial",),
    "multivariate_normal": ("MultivariateNormal",),
    "negative_binomial": ("NegativeBinomial",),
    "normal": ("Normal",),
    "one_hot_categorical": ("OneHotCategorical", "OneHotCategoricalStraightThrough"),
    "pareto": ("Pareto",),
    "poisson": ("Poisson",),
    "relaxed_bernoulli": ("LogitRelaxedBernoulli", "RelaxedBernoulli"),
    "relaxed_categorical": ("ExpRelaxedCategorical", "RelaxedOneHotCategorical"),
    "studentT": ("StudentT",),
    "uniform": ("Uniform",),
    "von_mises": ("VonMises",),
    "weibull": ("Weibull",),
    "wishart": ("Wishart",),
}


def install(package: Any) -> None:
    """Make ``<package>.<name>`` importable for every entry of :data:`MODULES`."""
    for name, names in MODULES.items():
        full = f"{package.__name__}.{name}"
        module = types.ModuleType(full, f"``{names[0]}`` at PyTorch's module path.")
        for n in names:
            # (the relaxed families' logit-space bases are not package-level names, as in
            # PyTorch)
            setattr(module, n, getattr(package, n, None) or getattr(relaxed, n))
        module.__all__ = list(names)  # type: ignore[attr-defined]
        sys.modules[full] = module
        setattr(package, name, module)
