"""dp: the small differential-privacy library behind DP Lab.

Reference code for students to read next to the lessons. Every function is pure,
takes its randomness as an explicit ``numpy.random.Generator``, validates its
arguments (``ValueError`` names the parameter and its valid range), and gives its
formula and source in the docstring.

The core, exported here (``from dp import NAME``):

    noise                 Laplace and Gaussian mechanisms and their calibration
    randomized_response   local DP for one bit
    selection             exponential mechanism, report-noisy-max, private median
    accounting            composition, zCDP, group privacy
    attacks               posterior bounds, hypothesis tests, averaging and reconstruction attacks
    audit                 empirical lower bounds on ε from samples

Lesson-specific maths lives in topic modules, imported as ``from dp.<module> import NAME``:

    privacy_loss          Laplace densities and privacy loss, guessing games   (What DP promises)
    linkage               synthetic voter roll and hospital table, linkage and differencing
    local_dp              randomized-response variants, local versus central error
    laplace_accuracy      sensitivity table, accuracy and its inverse, post-processing, clipping
    tails                 Gaussian tails and privacy loss, what δ allows
    auction, medians      digital-goods auction, private and histogram medians, coin bias
    composition_curves    composition bounds over a range of k, the advanced-composition crossover
    postprocessing        rounding and clamping a released count
    budget                a privacy accountant that refuses over-budget queries
    local_sensitivity     local and smooth sensitivity, propose-test-release
    graphs                random graphs, edge and node sensitivities, a private triangle count
    learning              logistic regression, DP gradient descent, membership inference, FedAvg
    rr_inference          a poll's debiased Yes share and its 95% interval   (Class poll)
"""

from dp.accounting import (
    advanced_composition,
    basic_composition,
    gaussian_composition_epsilon,
    gaussian_zcdp_rho,
    group_privacy,
    laplace_composition_epsilon,
    optimal_composition,
    zcdp_to_dp,
)
from dp.attacks import (
    averaging_attack_queries,
    max_true_positive_rate,
    posterior_bounds,
    reconstruction_attack,
)
from dp.audit import audit_epsilon
from dp.noise import (
    gaussian_delta,
    gaussian_epsilon,
    gaussian_mechanism,
    gaussian_sigma,
    laplace_mechanism,
    laplace_scale,
    laplace_tail,
)
from dp.randomized_response import (
    randomized_response,
    rr_epsilon,
    rr_estimate,
    rr_keep_probability,
    rr_simulate,
)
from dp.selection import (
    exponential_mechanism,
    exponential_probabilities,
    private_median,
    private_median_probabilities,
    report_noisy_max,
)

__all__ = [
    "advanced_composition",
    "audit_epsilon",
    "averaging_attack_queries",
    "basic_composition",
    "exponential_mechanism",
    "exponential_probabilities",
    "gaussian_composition_epsilon",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_mechanism",
    "gaussian_sigma",
    "gaussian_zcdp_rho",
    "group_privacy",
    "laplace_composition_epsilon",
    "laplace_mechanism",
    "laplace_scale",
    "laplace_tail",
    "max_true_positive_rate",
    "optimal_composition",
    "posterior_bounds",
    "private_median",
    "private_median_probabilities",
    "randomized_response",
    "reconstruction_attack",
    "report_noisy_max",
    "rr_epsilon",
    "rr_estimate",
    "rr_keep_probability",
    "rr_simulate",
    "zcdp_to_dp",
]
