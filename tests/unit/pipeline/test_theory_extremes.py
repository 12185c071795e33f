"""No value the schema accepts changes a verdict by numerical failure: every numeric key of every theory output's
config block, walked to the edges of its allowed range (inclusive bounds at the bound, exclusive ones just inside;
a grid's first element in turn), is either refused by the config check with one line naming the key, or builds the
output without a numpy overflow, invalid value or RuntimeWarning, and then

* (a row decided from an inf or nan is made "not checked" by ``Claim`` itself, tested in test_registry.py)
* no ``identity`` row that holds at the default settings comes out "does not hold": algebra makes those inequalities
  true for every parameter value, so such a flip can only be numerical (the way ``he-kl/dr-factor`` once flipped at
  eps_min = 1e-300). (A slip's identity row may legitimately stop failing at an edge, e.g. a factor m at m = 1.)

Keys without a maximum (counts such as ``points`` or ``replicates``) are walked to their minimum only: their cost, not
their arithmetic, grows with the value, and the run's cost check caps it."""
import copy
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest
from test_theory_params import SMALL, default_config

from adaptive_repro.foundation.config import ConfigError, dereferenced
from adaptive_repro.pipeline import catalogue, resources, validation
from adaptive_repro.pipeline.catalogue import output_params, output_schema
from adaptive_repro.pipeline.schema_points import edges


def extremes():
    """(output ID, key, value) for every numeric key (or first element of a numeric grid) at each edge."""
    for oid in catalogue.THEORY_OUTPUTS:
        schema, root = output_schema(oid)
        for key, prop in schema["properties"].items():
            prop, _ = dereferenced(prop, root)
            if prop.get("type") in ("number", "integer"):
                for value in edges(prop):
                    yield pytest.param(oid, key, value, id=f"{oid}.{key}={value:g}")
            elif prop.get("type") == "array":
                items, _ = dereferenced(prop["items"], root)
                if items.get("type") in ("number", "integer"):
                    for value in edges(items):
                        yield pytest.param(oid, key, [value], id=f"{oid}.{key}[0]={value:g}")


def _config(oid: str, block: dict) -> dict:
    cfg = default_config() | {"outputs": [oid]}
    node = cfg
    for part in catalogue.get(oid).config_block[:-1]:
        node = node.setdefault(part, {})
    node[catalogue.get(oid).config_block[-1]] = block
    return cfg


def _claims(oid: str, block: dict):
    """The output's claims at ``block``, after the checks a run makes before any job (config, then cost)."""
    resolved = validation.validated(_config(oid, block))
    params = output_params(resolved, oid)
    cost = resources.theory_cost(oid, params, catalogue.default_params(oid))
    resources.check_and_estimate({}, None, None, None, resources.available_memory_mb(), {oid: cost},
                                 resolved["max_cpu_hours"])
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise"):
        warnings.simplefilter("error", RuntimeWarning)
        _, fig, claims = catalogue.build(oid, params)
    plt.close(fig)
    return claims


#: Identity rows whose verdict the algebra ties to a parameter range, so an edge of the range may flip them honestly.
CONDITIONAL_IDENTITIES = {
    "thm3-proof-markov-direction": "2 eps/(1 + alpha) <= eps iff alpha >= 1, and alpha ~ 4 eps on the grid",
}

_DEFAULT_CLAIMS: dict = {}


def _default_claims(oid: str):
    if oid not in _DEFAULT_CLAIMS:
        _DEFAULT_CLAIMS[oid] = {c.claim_id: c for c in _claims(oid, copy.deepcopy(SMALL[oid]))}
    return _DEFAULT_CLAIMS[oid]


def _with_edge(value, grid):
    """A grid with its first element replaced by the edge value (kept sorted and unique if the grid is)."""
    edge = value[0]
    rest = [v for v in grid[1:] if v != edge]
    out = [edge, *rest]
    return sorted(out) if grid == sorted(grid) else out


@pytest.mark.slow
@pytest.mark.parametrize("oid, key, value", list(extremes()))
def test_a_theory_key_at_its_bounds_is_refused_or_decides_nothing_from_numerical_failure(oid, key, value):
    default = _default_claims(oid)
    block = copy.deepcopy(SMALL[oid])
    if isinstance(value, list):
        grid = block.get(key) or catalogue.default_params(oid)[key]
        value = _with_edge(value, list(grid)) if grid and not isinstance(grid[0], (dict, list)) else value
    block[key] = value
    try:
        claims = _claims(oid, block)
    except ConfigError as err:
        assert key in str(err) and "\n" not in str(err), str(err)  # the key named, in one line
        return
    for c in claims:
        if (c.strength == "identity" and c.claim_id not in CONDITIONAL_IDENTITIES and default.get(c.claim_id)
                and default[c.claim_id].status == "holds"):
            assert c.status != "does not hold", (c.claim_id, c.measured, c.counterexample)


def singletons():
    """(output ID, key, [value]) for the first and the last value of every numeric grid of the default config: each
    grid reduced to one of its own values (the others at the fast settings), where an empty selection inside a
    builder shows. Two values suffice: a builder's selection of any one grid value w is empty in the grid of one
    value that is not w, and one of the two ends is not w; the ends are also where selections by order (the largest,
    the smallest) meet a grid of one. (Every value in turn, 196 builds, found nothing these 2 per key do not.)"""
    config = validation.validated(default_config())
    for oid in catalogue.THEORY_OUTPUTS:
        for key, grid in output_params(config, oid).items():
            if isinstance(grid, list) and len(grid) > 1 and all(isinstance(v, (int, float)) for v in grid):
                for value in (grid[0], grid[-1]):
                    yield pytest.param(oid, key, [value], id=f"{oid}.{key}=[{value:g}]")


@pytest.mark.slow
@pytest.mark.parametrize("oid, key, value", list(singletons()))
def test_a_grid_of_one_default_value_builds_or_is_refused(oid, key, value):
    block = copy.deepcopy(SMALL[oid]) | {key: value}
    try:
        _claims(oid, block)
    except ConfigError as err:
        assert key in str(err) and "\n" not in str(err), str(err)


@pytest.mark.slow
def test_deltas_of_1e300_keep_the_second_order_rows():
    """delta = 1e-300 (schema-valid: delta's minimum is 0): (T delta)^2 underflows to 0, yet a difference of two
    1e-5-sized deltas is still rounded; with the rounding slack relative to the values compared the three first-order
    rows keep "holds", as their algebra (and their default verdict) says. (delta~ = 1e-300 is below its floor.)"""
    with pytest.raises(ConfigError, match="delta_tilde_sweep"):
        _claims("he-composition-delta", copy.deepcopy(SMALL["he-composition-delta"]) | {"delta_tilde_sweep": [1e-300]})
    claims = {c.claim_id: c for c in _claims("he-composition-delta", copy.deepcopy(SMALL["he-composition-delta"])
                                              | {"delta": [0, 1.0e-300], "delta_tilde_sweep": [1.0e-150]})}
    for cid in ("cor2-first-order", "he-delta-eq-kairouz-at-m-eq-T", "he-gap-first-order"):
        assert claims[cid].status == "holds", (cid, claims[cid].measured)


@pytest.mark.slow
def test_an_eps_whose_sample_size_overflows_is_refused_in_one_line():
    """eps = 1e-300 in he-generalization: Theorem 1's N = 2/eps^2 ln(...) would overflow a float, so the schema's
    floor refuses it before any job, naming the key; at the floor 1e-150 every row is decided or says why not."""
    with pytest.raises(ConfigError, match=r"theory\.he\.generalization\.eps\[0\]': value 1e-300 .*at least 1e-150"):
        _claims("he-generalization", copy.deepcopy(SMALL["he-generalization"]) | {"eps": [1.0e-300]})
    claims = {c.claim_id: c for c in _claims("he-generalization", copy.deepcopy(SMALL["he-generalization"])
                                              | {"eps": [1.0e-150]})}
    assert all("nan" not in c.measured.split() for c in claims.values())
