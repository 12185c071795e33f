"""Every public library function, called with arguments drawn from the whole of their allowed domains (subnormals,
1e+-300, the domain's ends, Python and numpy numbers), with every warning raised as an error, either returns a
result or raises a ``ValueError`` that names it. A result holds no nan or inf unless the function's docstring says
where it gives one, and a probability of the ground truth stays in [0, 1].

The counts that set a computation's size (T, n, steps_per_eps) are drawn up to 10^4 where the cost grows with them
(the ground truth, the chain lemmas): their documented limits are checked by refusal, not by waiting.
"""
import dataclasses
import inspect
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_domain import wrapped_functions  # a sibling test module

from adaptive_repro import groundtruth
from adaptive_repro.foundation.domain import Domain

#: The data models' module-level functions, checked as the library's are (those taking only checked arguments, a
#: random generator or a transition matrix are called here).
MODELS = ["adaptive_repro.simulation.data_models", "adaptive_repro.simulation.models.regimes",
          "adaptive_repro.simulation.models.households", "adaptive_repro.simulation.models.attribute_chains"]
#: Modules whose cost grows with a count argument: those counts are drawn up to SIZE_CAP.
SIZED = ("adaptive_repro.groundtruth", "adaptive_repro.privacy.lemmas", *MODELS)
SIZE_CAP = 10**4
#: A two-state chain for the functions taking a transition matrix P (not a checked argument).
CHAIN = np.array([[0.9, 0.1], [0.2, 0.8]])


def _float(domain: Domain) -> st.SearchStrategy:
    finite_high = None if math.isinf(domain.high) else domain.high
    return st.floats(min_value=domain.low, max_value=finite_high, exclude_min=domain.low_open,
                     exclude_max=domain.high_open and finite_high is not None, allow_nan=False,
                     allow_infinity=False,
                     allow_subnormal=domain.low < np.finfo(float).tiny)


def _integer(domain: Domain, cap: float) -> st.SearchStrategy:
    low = int(math.floor(domain.low)) + (1 if domain.low_open and domain.low == math.floor(domain.low) else 0)
    low = max(low, math.ceil(domain.low))
    high = min(domain.high, cap)
    high = int(high) - (1 if domain.high_open and high == domain.high else 0)
    return st.integers(min_value=low, max_value=high)


def arguments(module_name: str, func) -> st.SearchStrategy:
    """Keyword arguments of one call: every checked argument drawn from its domain (as a Python or numpy number);
    the others (a transition matrix, a batch size) fixed."""
    cap = SIZE_CAP if module_name in SIZED else 10**15
    draws = {}
    for name, domain in func.__wrapped_domains__.items():
        if domain.boolean:
            draws[name] = st.booleans()
            continue
        value = _integer(domain, cap) if domain.integer else _float(domain)
        kind = st.sampled_from([lambda v: v, np.int64 if domain.integer else np.float64])
        draws[name] = st.tuples(value, kind).map(lambda pair: pair[1](pair[0]))
    params = inspect.signature(func).parameters
    fixed = {name: value for name, value in (("P", CHAIN), ("batch", 1), ("rng", np.random.default_rng(0)))
             if name in params}
    return st.fixed_dictionaries(draws).map(lambda kw: kw | fixed)


def _numbers(result) -> list[float]:
    if isinstance(result, dict):
        return [x for value in result.values() for x in _numbers(value)]
    if isinstance(result, (tuple, list)):
        return [x for value in result for x in _numbers(value)]
    if dataclasses.is_dataclass(result):
        return _numbers(dataclasses.astuple(result))
    if isinstance(result, (bool, np.bool_)) or getattr(result, "dtype", None) is np.dtype(bool):
        return []
    if isinstance(result, (int, float, np.number, np.ndarray)):
        return np.ravel(np.asarray(result, dtype=float)).tolist()
    return []  # an object of a library (a privacy-loss distribution): its own tests check it


def _is_probability(module_name: str, name: str) -> bool:
    return module_name == "adaptive_repro.groundtruth" and ("delta" in name and "log" not in name)


def _callable_here(func) -> bool:
    """Checked, and every required argument checked or one this test supplies."""
    domains = getattr(func, "__wrapped_domains__", None)
    if not domains:
        return False
    required = [p for p, v in inspect.signature(func).parameters.items() if v.default is inspect.Parameter.empty]
    return all(p in domains or p in ("P", "batch", "rng") for p in required)


CASES = [p for p in [*wrapped_functions(), *wrapped_functions(MODELS)] if _callable_here(p.values[2])]


@pytest.mark.slow
@pytest.mark.parametrize("module_name, name, func", CASES)
def test_a_call_inside_the_domain_returns_a_number_or_a_named_error(module_name, name, func):
    doc = func.__doc__ or ""

    @given(arguments(module_name, func))
    @settings(max_examples=40)
    def call(kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                result = func(**kwargs)
            except ValueError as err:
                assert str(err).startswith(name), f"{name}({kwargs}) raised an error naming something else: {err}"
                return
        values = _numbers(result)
        assert "nan" in doc or not any(math.isnan(v) for v in values), f"{name}({kwargs}) = nan, undocumented"
        assert "inf" in doc or not any(math.isinf(v) for v in values), f"{name}({kwargs}) = inf, undocumented"
        if _is_probability(module_name, name):
            assert all(0.0 <= v <= 1.0 for v in values if not math.isnan(v)), f"{name}({kwargs}) = {values}"

    call()


@pytest.mark.parametrize("call, message", [
    (lambda: groundtruth.pure_dp_pld_delta(1.0, 10**7, 1.0, steps_per_eps=10), "grid points, more than the limit"),
    (lambda: groundtruth.laplace_pld_eps(1.0, 10**6, 1e-6, interval=1e-5), "grid points, more than the limit"),
    (lambda: groundtruth.linear_instance_delta(0.01, 1e3, 1.0, 1000, 1.0), "grid points, more than the limit"),
    (lambda: groundtruth.laplace_pld_eps(0.0, 10, 1e-6), "laplace_pld_eps.*argument eps = 0.0"),
    (lambda: groundtruth.linear_instance_delta(0.01, 1.0, 1.0, 10, 0.0), "argument eps_prime = 0.0"),
])
def test_a_privacy_loss_distribution_beyond_its_limit_is_refused_before_it_is_built(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_an_error_inside_names_the_call_the_user_made():
    from adaptive_repro.bounds import zhao

    with pytest.raises(ValueError, match=r"^theorem2_n_required\(.*\): .*lemma1_sample_size"):
        zhao.theorem2_n_required(2.0, 1e-300, 1.0, 1e-12, 0.5, 1e300)
