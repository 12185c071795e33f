"""Every public function of the library (bounds, accounting, ground truth) checks its arguments' domains: a value
outside (negative eps, delta_tilde = 0 or 2, T = 0, nan, inf, text) raises ValueError naming the function and the
argument before anything is computed; values inside pass the check. Property tests draw the values (hypothesis)."""
import importlib
import inspect
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from adaptive_repro.foundation.domain import DOMAINS, Domain, check, checked, unchecked

LIBRARY = ["adaptive_repro.bounds.he", "adaptive_repro.bounds.he_applications",
           "adaptive_repro.bounds.he_generalization", "adaptive_repro.bounds.lecture", "adaptive_repro.bounds.zhao",
           "adaptive_repro.privacy.lemmas", "adaptive_repro.groundtruth"]


def wrapped_functions(modules=LIBRARY):
    """Every public function defined in ``modules``, as pytest params (module name, function name, function)."""
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name, func in vars(module).items():
            if inspect.isfunction(func) and func.__module__ == module_name and not name.startswith("_"):
                yield pytest.param(module_name, name, func, id=f"{module_name.split('.')[-1]}.{name}")


NUMERIC = sorted(name for name, domain in DOMAINS.items() if not domain.boolean)


def inside(domain: Domain) -> float:
    """A value every domain of its kind accepts."""
    if domain.boolean:
        return False
    if domain.integer:
        return max(1.0, math.ceil(domain.low + 1))
    if math.isinf(domain.high):
        return domain.low + 1.0
    return (domain.low + domain.high) / 2


def outside(domain: Domain) -> list:
    if domain.boolean:
        return [0, 1.0, "True", None, np.array([True])]
    values = [float("nan"), "text", domain.low - 1.0, True, np.float64("nan"), "1"]
    if not domain.optional:
        values.append(None)
    if domain.low == 0 and not domain.low_open:
        values.append(-0.0)
    if domain.scalar:
        values.append(np.array([inside(domain), inside(domain)]))
    if domain.low_open:
        values.append(domain.low)
    if math.isfinite(domain.high):
        values += [domain.high + 1.0] + ([domain.high] if domain.high_open else [])
    else:
        values.append(-float("inf"))
    if domain.integer:
        values.append(domain.low + 1.5)
    return values


def test_every_public_library_function_checks_the_arguments_it_names():
    unchecked = []
    for param in wrapped_functions():
        _, name, func = param.values
        checked = set(getattr(func, "__wrapped_domains__", {}))
        known = {p for p in inspect.signature(func).parameters if p in DOMAINS}
        if known and not checked:
            unchecked.append(name)
    assert not unchecked, f"public functions whose domain arguments are not checked: {unchecked}"


@pytest.mark.parametrize("module_name, name, func",
                         [p for p in wrapped_functions() if getattr(p.values[2], "__wrapped_domains__", None)])
def test_a_value_outside_its_domain_is_refused_naming_the_argument(module_name, name, func):
    domains = func.__wrapped_domains__
    params = inspect.signature(func).parameters
    base = {p: inside(domains[p]) for p in domains}
    others = {p: 0.5 for p, v in params.items() if p not in domains and v.default is inspect.Parameter.empty
              and v.kind in (v.POSITIONAL_OR_KEYWORD, v.KEYWORD_ONLY)}
    for arg, domain in domains.items():
        for bad in outside(domain):
            with pytest.raises(ValueError, match=rf"{name}: argument {arg} = "):
                func(**others, **(base | {arg: bad}))


@given(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(NUMERIC))
@settings(max_examples=400, deadline=None)
def test_check_agrees_with_the_written_domain(value, name):
    domain = DOMAINS[name]
    ok = math.isfinite(value) or (value == math.inf and math.isinf(domain.high) and not domain.high_open)
    ok = ok and not (value == 0 and math.copysign(1.0, value) < 0 and domain.low >= 0)  # -0.0 where low is 0
    ok = ok and (value > domain.low if domain.low_open else value >= domain.low)
    ok = ok and (value < domain.high if domain.high_open else value <= domain.high)
    ok = ok and (not domain.integer or (math.isfinite(value) and value == int(value)))
    if ok:
        check("f", name, value, domain)
        check("f", name, np.array([value, value]), domain)
    else:
        with pytest.raises(ValueError, match=rf"f: argument {name} = .* allowed: "):
            check("f", name, value, domain)
        with pytest.raises(ValueError, match=rf"an element of {name}"):
            check("f", name, np.array([inside(domain), value]), domain)


@given(eps=st.floats(0, 5), T=st.integers(1, 10_000), delta_tilde=st.floats(1e-12, 1))
@settings(max_examples=200, deadline=None)
def test_valid_arguments_give_finite_bounds(eps, T, delta_tilde):
    from adaptive_repro.bounds import he

    for f in (he.drv_eps, he.kairouz_eps, he.he_theorem4_eps):
        value = f(eps, T, delta_tilde)
        assert np.isfinite(value) and value >= 0


def test_unchecked_is_the_function_without_its_checks():
    def f(eps, x):
        return eps + x

    g = checked(f)
    with pytest.raises(ValueError, match="argument eps"):
        g(-1.0, 0.0)
    assert unchecked(g) is f and unchecked(f) is f
    assert unchecked(g)(-1.0, 0.0) == -1.0


EXTRA_DOMAINS = [Domain(0.0, math.inf), Domain(-1.0, 2.0, low_open=True, integer=True),
                 Domain(1.0, math.inf, integer=True)]  # +inf allowed; an integer range with an open end


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6)),
       st.sampled_from(NUMERIC + list(range(len(EXTRA_DOMAINS)))))
@example(math.inf, 0)
@example(-0.0, 0)
@example(-0.0, "eps")
@settings(max_examples=300, deadline=None)
def test_the_scalar_check_decides_as_the_array_check(value, which):
    domain = DOMAINS[which] if isinstance(which, str) else EXTRA_DOMAINS[which]
    assert domain.holds_for(float(value)) == bool(domain.holds(np.asarray(value, dtype=float)))


def test_checked_finds_each_argument_where_python_binds_it():
    def f(u, eps, /, delta=0.5, *, k=1):
        return (u, eps, delta, k)

    g = checked(f)
    assert g(-7.0, 1.0) == (-7.0, 1.0, 0.5, 1)  # u is not checked; delta and k left to their defaults
    u, eps, delta, k = g(0.0, np.array([0.0, 2.0]), delta=np.float64(1.0), k=3)
    assert eps.tolist() == [0.0, 2.0] and (delta, k) == (1.0, 3)
    assert g(0.0, 1, 0.25, k=np.int64(2)) == (0.0, 1, 0.25, 2)
    for call, message in [(lambda: g(0.0, -1.0), "f: argument eps = -1.0 is not allowed"),
                          (lambda: g(0.0, np.array([1.0, -2.0])), r"f: argument eps = -2.0 \(an element of eps\)"),
                          (lambda: g(0.0, 1.0, 1.5), "f: argument delta = 1.5"),
                          (lambda: g(0.0, 1.0, delta="x"), "f: argument delta = 'x' is a string, not a number"),
                          (lambda: g(0.0, 1.0, k=2.5), "f: argument k = 2.5"),
                          (lambda: g(0.0, 1.0, k=0), "f: argument k = 0.0"),
                          (lambda: g(0.0, 1.0, k=True), "f: argument k = True is a bool"),
                          (lambda: g(0.0, "1"), "f: argument eps = '1' is a string"),
                          (lambda: g(0.0, -0.0), "f: argument eps = -0.0 is not allowed"),
                          (lambda: g(0.0, 1.0, None), "f: argument delta = None is None"),
                          (lambda: g(0.0, np.array(["1"])), "f: argument eps = .* is not a number")]:
        with pytest.raises(ValueError, match=message):
            call()
    with pytest.raises(TypeError):  # positional-only eps given by keyword: the call does not fit the signature
        g(0.0, eps=-1.0)

    def h(eps, c: float | None = None, n: int = 1):
        return (eps, c, n)

    h = checked(h)  # None only where it is the default; an argument annotated int or float takes one number
    assert h(1.0, None) == (1.0, None, 1)
    for call, message in [(lambda: h(None), "h: argument eps = None is None"),
                          (lambda: h(1.0, np.array([0.5])), "argument c = .* is an array"),
                          (lambda: h(1.0, n=2.5), "argument n = 2.5 is not allowed; allowed: an integer > 0")]:
        with pytest.raises(ValueError, match=message):
            call()


def test_a_memoized_lemma_takes_its_own_argument_names():
    """lemma2_eps_bdp's cache wrapper binds the names its signature reports (eps_dp, n, P), so the domain check and
    the call agree on which value is which."""
    from adaptive_repro.privacy import lemmas

    P = np.array([[0.9, 0.1], [0.1, 0.9]])
    positional = lemmas.lemma2_eps_bdp(0.5, 5, P)
    assert lemmas.lemma2_eps_bdp(eps_dp=0.5, n=5, P=P) == positional == lemmas.lemma2_eps_bdp(0.5, n=5, P=P)
    with pytest.raises(TypeError):
        lemmas.lemma2_eps_bdp(eps=0.5, n=5, P=P)
    with pytest.raises(ValueError, match="lemma2_eps_bdp: argument eps_dp = -1.0"):
        lemmas.lemma2_eps_bdp(eps_dp=-1.0, n=5, P=P)


def _issue37_calls():
    from adaptive_repro import groundtruth as gt
    from adaptive_repro.bounds import he, zhao
    from adaptive_repro.bounds import he_applications as ha
    from adaptive_repro.bounds import he_generalization as hg
    from adaptive_repro.privacy import lemmas

    return [(lambda: ha.sgld_eps_tilde(L=-1, sigma=1, tau=10, delta=1e-5), "argument L = -1.0"),
            (lambda: ha.sgld_eps_tilde(L=float("nan"), sigma=1, tau=10, delta=1e-5), "argument L = nan"),
            (lambda: he.drv_eps(1e300, 100, 1e-6), r"drv_eps\(1e\+300, 100, 1e-06\): the result is not representable"),
            (lambda: hg.theorem1_b(0, 1e-6), "argument eps = 0.0 is not allowed; allowed: a number > 0"),
            (lambda: zhao.chain_fraction_tail(n=0.5, p_stay=0.9, tau=0.1), "argument n = 0.5"),
            (lambda: zhao.chain_fraction_tail(10**5, 0.9, 0.1), "n = 100000 is not allowed; allowed: at most 20000"),
            (lambda: he.naive_eps(None, 100), "argument eps = None is None"),
            (lambda: he.kairouz_eps("1", 100, 1e-6), "argument eps = '1' is a string"),
            (lambda: he.he_corollary2_delta(0.1, "1", 10, 1, 1e-6), "argument delta = '1' is a string"),
            (lambda: he.naive_eps(True, 100), "argument eps = True is a bool"),
            (lambda: he.naive_eps(-0.0, 100), "argument eps = -0.0 is not allowed"),
            (lambda: lemmas.dp_level_for_bdp(0.0, 10, 0.9, 0.9), "argument eps_bdp = 0.0 is not allowed"),
            (lambda: gt.kov_log_delta_g(np.array([0.1, 0.2]), 10, 0.5), "argument eps = .* is an array"),
            (lambda: gt.kov_delta(0.1, 0.0, 2.5, 0.5), "argument T = 2.5")]


@pytest.mark.parametrize("case", range(14))
def test_the_calls_of_issue_37_are_refused_by_name(case):
    call, message = _issue37_calls()[case]
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.slow  # kov_delta at T = 10^7: about 1.5 s
def test_ground_truth_probabilities_stay_in_0_1_and_eps_0_is_allowed():
    from adaptive_repro import groundtruth as gt

    assert gt.kov_delta(0.01, 0.0, 10**7, 5.0) <= 1.0
    assert gt.kov_delta(0.0, 1e-6, 10, 0.5) == gt.delta_floor(1e-6, 10)  # 0-DP steps compose to the floor
    assert gt.kov_eps(0.0, 1e-6, 10, 1e-3) == 0.0
