"""Values from a JSON schema, for measuring a claim's strength (:mod:`adaptive_repro.pipeline.strength`): the edges
of a key's range (inclusive bounds at the bound, exclusive ones just inside; a grid of one element at each edge, or
empty where allowed) and random values within its type and range (log-uniform over wide positive ranges)."""

from __future__ import annotations

import math

import numpy as np

from adaptive_repro.foundation.config import dereferenced

#: Relative step inside an exclusive bound (an edge value just inside the allowed range).
INSIDE = 1e-9
#: Probability that a drawn number is one of its range's edges rather than an interior value.
EDGE_PROBABILITY = 0.15
#: A key without an upper bound is drawn up to this factor times the larger of its default and fast value.
UNBOUNDED_FACTOR = 20.0


def edges(prop: dict) -> list[float]:
    """The edge values a numeric schema allows: inclusive bounds at the bound, exclusive ones just inside."""
    values = [prop[k] for k in ("minimum", "maximum") if k in prop]
    if "exclusiveMinimum" in prop:
        lo = prop["exclusiveMinimum"]
        values.append(lo + max(abs(lo), 1.0) * INSIDE if lo == 0 else lo * (1 + INSIDE))
    if "exclusiveMaximum" in prop:
        values.append(prop["exclusiveMaximum"] * (1 - INSIDE))
    if prop.get("type") == "integer":
        values = [int(np.ceil(v)) for v in values]
    return values


def _number(prop: dict, rng: np.random.Generator, scale: float):
    """A value of a numeric schema: an edge (sometimes) or a draw inside the range, log-uniform where the range spans
    more than a factor 20 of positive values. ``scale`` bounds a range without a maximum."""
    if rng.random() < EDGE_PROBABILITY and edges(prop):
        return edges(prop)[rng.integers(len(edges(prop)))]
    lo = prop.get("minimum", prop.get("exclusiveMinimum"))
    hi = prop.get("maximum", prop.get("exclusiveMaximum"))
    integer = prop.get("type") == "integer"
    if lo is None:
        lo = -UNBOUNDED_FACTOR * max(abs(scale), 1.0)
    if hi is None:
        hi = UNBOUNDED_FACTOR * max(abs(scale), abs(lo), 1.0)
    low, high = float(lo), float(hi)
    if low == 0 and not integer:  # exclusive 0: log-uniform from far below the scale
        low = min(high, abs(scale) or 1.0) * 1e-6
    if low > 0 and high / low > 20:
        value = math.exp(rng.uniform(math.log(low), math.log(high)))
    else:
        value = rng.uniform(low, high)
    if integer:
        value = int(min(max(round(value), math.ceil(float(lo))), math.floor(float(hi))))
    elif "exclusiveMinimum" in prop and value <= prop["exclusiveMinimum"]:
        value = edges({"exclusiveMinimum": prop["exclusiveMinimum"]})[0]
    elif "exclusiveMaximum" in prop and value >= prop["exclusiveMaximum"]:
        value = prop["exclusiveMaximum"] * (1 - INSIDE)
    return value


def draw_value(prop: dict, root: dict, rng: np.random.Generator, reference):
    """A value ``prop`` allows, near the scale of ``reference`` (the key's default or fast value)."""
    prop, root = dereferenced(prop, root)
    kind = prop.get("type")
    if "enum" in prop:
        return prop["enum"][rng.integers(len(prop["enum"]))]
    if kind == "boolean":
        return bool(rng.integers(2))
    if kind in ("number", "integer"):
        return _number(prop, rng, float(reference) if isinstance(reference, (int, float)) else 1.0)
    if kind == "array":
        lo = max(prop.get("minItems", 0), 1)
        hi = max(min(prop.get("maxItems", 3), 3), lo)
        items, item_root = dereferenced(prop["items"], root)
        first = reference[0] if isinstance(reference, list) and reference else None
        values = [draw_value(items, item_root, rng, first) for _ in range(int(rng.integers(lo, hi + 1)))]
        if items.get("type") in ("number", "integer"):
            values = sorted(set(values))
            while len(values) < lo:  # a duplicate draw: top up with fresh values
                values = sorted(set(values) | {draw_value(items, item_root, rng, first)})
        return values
    if kind == "object":
        ref = reference if isinstance(reference, dict) else {}
        return {key: draw_value(sub, root, rng, ref.get(key)) for key, sub in prop.get("properties", {}).items()}
    raise ValueError(f"no rule to draw a value of schema type {kind!r}")


def key_edges(prop: dict, root: dict) -> list:
    """The edge values of one key: a number's edges, a grid of one element at each edge of its items (and the empty
    grid where allowed), an object with every field at its lower or its upper edge, both booleans, every enum value."""
    prop, root = dereferenced(prop, root)
    kind = prop.get("type")
    if "enum" in prop:
        return list(prop["enum"])
    if kind == "boolean":
        return [False, True]
    if kind in ("number", "integer"):
        return sorted(set(edges(prop)))
    if kind == "array":
        items, item_root = dereferenced(prop["items"], root)
        values = [[v] for v in key_edges(items, item_root)] if items.get("type") != "object" else [
            [obj] for obj in (_object_edge(items, item_root, 0), _object_edge(items, item_root, -1)) if obj]
        return ([[]] if prop.get("minItems", 0) == 0 else []) + values
    return []


def _object_edge(prop: dict, root: dict, which: int) -> dict:
    """An object whose numeric fields all sit at their first (0) or last (-1) edge."""
    out = {}
    for key, sub in prop.get("properties", {}).items():
        values = key_edges(sub, root)
        if not values:
            return {}
        out[key] = values[which]
    return out
