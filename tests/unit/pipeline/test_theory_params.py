"""Each theory output's parameters are its own config block plus the seed: changing one key changes the params digest
of exactly the output whose block holds it; builders fill in no defaults (incomplete params are refused by name)
and read every key of their block."""
import copy

import matplotlib.pyplot as plt
import pytest
import yaml
from conftest import ROOT

from adaptive_repro.foundation.config import dereferenced, digest
from adaptive_repro.pipeline import catalogue, strength, validation
from adaptive_repro.pipeline.catalogue import ParamsError, default_params, output_params, output_schema

THEORY = catalogue.THEORY_OUTPUTS


def default_config() -> dict:
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    return cfg | {"outputs": list(THEORY), "theory": {}}


def changed(value, schema: dict, root: dict):
    """A value other than ``value`` that ``schema`` allows (bounds, minItems)."""
    schema, root = dereferenced(schema, root)
    kind = schema.get("type")
    if kind == "boolean":
        return not value
    if kind == "integer":
        return value - 1 if value + 1 > schema.get("maximum", value + 1) else value + 1
    if kind == "number":
        up = value * 1.01 if value else 0.5
        hi, ex_hi = schema.get("maximum"), schema.get("exclusiveMaximum")
        return value * 0.99 if (hi is not None and up > hi) or (ex_hi is not None and up >= ex_hi) else up
    if kind == "array":
        if len(value) > schema.get("minItems", 0):
            return value[:-1]
        return [changed(value[0], schema["items"], root), *value[1:]]
    raise AssertionError(f"no rule to change a {kind} value {value!r}")


def block_keys():
    """(output ID, key, sub-schema, root) of every key of every theory output's config block."""
    for oid in THEORY:
        schema, root = output_schema(oid)
        for key, prop in schema["properties"].items():
            yield oid, key, prop, root


def test_each_theory_output_has_its_own_block():
    blocks = [catalogue.get(oid).config_block for oid in THEORY]
    assert len(set(blocks)) == len(blocks), "two theory outputs share a config block"
    assert all(len(b) == 3 and b[0] == "theory" for b in blocks)
    resolved = validation.validated(default_config())
    for oid in THEORY:
        schema, _ = output_schema(oid)
        assert set(output_params(resolved, oid)) == set(schema["properties"]) | {"seed"}, oid
        assert output_params(resolved, oid) == default_params(oid, seed=resolved["seed"]), oid


@pytest.fixture(scope="module")
def resolved_default() -> dict:
    """The default config with every theory output, resolved once (tests copy it before changing it)."""
    return validation.validated(default_config())


@pytest.mark.parametrize("oid,key,prop,root", list(block_keys()),
                         ids=[f"{o}:{k}" for o, k, _, _ in block_keys()])
def test_a_key_changes_the_digest_of_exactly_its_output(oid, key, prop, root, resolved_default):
    before = {o: digest(output_params(resolved_default, o)) for o in THEORY}
    cfg = copy.deepcopy(resolved_default)
    node = cfg
    for part in catalogue.get(oid).config_block:
        node = node[part]
    node[key] = changed(node[key], prop, root)
    changed_config = validation.validated(cfg)
    after = {o: digest(output_params(changed_config, o)) for o in THEORY}
    assert [o for o in THEORY if after[o] != before[o]] == [oid]


@pytest.mark.parametrize("oid", THEORY)
def test_builder_refuses_empty_or_incomplete_params(oid):
    block = ".".join(catalogue.get(oid).config_block)
    with pytest.raises(ParamsError, match=f"^{oid}: .*{block}.*missing") as err:
        catalogue.build(oid, {})
    assert "'seed'" in str(err.value)
    full = default_params(oid, seed=1)
    key = next(k for k in full if k != "seed")
    with pytest.raises(ParamsError, match=f"missing '{key}'\\W") as err:
        catalogue.build(oid, {k: v for k, v in full.items() if k != key})
    assert oid in str(err.value)
    with pytest.raises(ParamsError, match="unknown 'extra'"):
        catalogue.build(oid, full | {"extra": 1})


def test_old_whole_block_params_are_refused():
    with pytest.raises(ParamsError, match="unknown 'kl'"):
        catalogue.build("he-kl", {"kl": {"points": 11}, "seed": 1})


class Recording(dict):
    """A params dict that records the keys a builder reads."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.read = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)


SMALL = strength.FAST_SETTINGS  # fast settings (the keys only need to be read)




@pytest.mark.parametrize("oid", THEORY)
def test_builder_reads_every_key_of_its_block(oid):
    params = Recording(default_params(oid, SMALL[oid], seed=1))
    _, fig, _ = catalogue.build(oid, params)
    plt.close(fig)
    unread = set(params) - params.read - ({"seed"} if catalogue.get(oid).paper != "lecture" and oid != "zhao-lemma1"
                                          else set())
    assert not unread, f"{oid} does not read {sorted(unread)} of its block"


def test_config_module_fills_no_defaults_outside_validation():
    """block_at / output_params read the (validated) config as it is."""
    assert catalogue.output_params({"seed": 1, "theory": {"he": {"kl": {"points": 3}}}}, "he-kl") == {"points": 3,
                                                                                                   "seed": 1}


def test_the_run_header_names_the_theory_settings_a_run_changed(resolved_default):
    """REPRODUCTION.md's "Run:" line names every theory setting that differs from its default (nested keys dotted),
    and says none when there is none."""
    from adaptive_repro.foundation.registry import run_header

    assert all(catalogue.changed_from_defaults(resolved_default, oid) == [] for oid in THEORY)
    assert "Theory settings changed from their defaults: none." in run_header(resolved_default, ["he-kl"])
    cfg = copy.deepcopy(resolved_default)
    cfg["theory"]["he"]["kl"]["points"] = 41
    changed = catalogue.changed_from_defaults(cfg, "he-kl")
    assert changed == ["theory.he.kl.points = 41"]
    assert "changed from their defaults: `theory.he.kl.points = 41`." in run_header(cfg, ["he-kl"], changed=changed)
    assert all(catalogue.changed_from_defaults(cfg, oid) == [] for oid in THEORY if oid != "he-kl")
