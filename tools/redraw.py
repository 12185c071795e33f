"""Redraw outputs' figures from a finished run's results, without Snakemake, to look at them while editing figure code.

    python tools/redraw.py zhao-fig3 he-sgld --results results --out /tmp/figs

For each output ID: the builder (catalogue.build) runs on the run's resolved config (``<results>/run-config.yaml``)
and, for an experiment output, its aggregated records; the figure is written to ``<out>/<ID>.png`` at full resolution
and ``<out>/<ID>.report.png`` at the size the HTML report shows it at a 1,400 px window (with the table and
claims, to ``cmp`` against the run's), and every problem
figure_checks.figure_problems finds (width, font sizes, encoding, log ticks, code in titles) is printed. Nothing under
``<results>`` is written: this is a developer's tool, the pipeline's figures come from ``snakemake``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

from adaptive_repro.foundation.io import FIGURE_DPI, read_verified_csv
from adaptive_repro.pipeline import catalogue
from adaptive_repro.pipeline.catalogue import output_params
from adaptive_repro.report import figure_checks, plotting
from adaptive_repro.report.report_html import figure_css_width


def build_inputs(output_id: str, config: dict, results: Path) -> tuple[dict, dict]:
    """(params, inputs) of ``output_id`` as the build job passes them (build_output.py)."""
    if catalogue.get(output_id).kind != "experiment":
        return output_params(config, output_id), {}
    from adaptive_repro.pipeline.specs import expand_experiments, output_of

    inputs = {kind: read_verified_csv(results / "records" / f"{output_id}.{kind}.csv")
              for kind in ("records", "diagnostics")}
    inputs["specs"] = {name: spec for name, spec in expand_experiments(config).items() if output_of(name) == output_id}
    return {"seed": config["seed"]}, inputs


def redraw(output_id: str, config: dict, results: Path, out: Path) -> list[str]:
    """Build ``output_id``'s figure, save it full-size and at report size, its table and claims as
    ``<out>/<ID>.table.csv`` and ``<out>/<ID>.claims.csv`` (to compare with the run's: a figure change must leave
    them byte-identical); its problems (figure_problems)."""
    from PIL import Image

    from adaptive_repro.foundation.io import write_csv
    from adaptive_repro.foundation.registry import write_claims

    params, inputs = build_inputs(output_id, config, results)
    start = time.process_time()
    table, fig, claims = catalogue.build(output_id, params, inputs)
    write_csv(table, out / f"{output_id}.table.csv")
    write_claims(claims, out / f"{output_id}.claims.csv")
    fig.canvas.draw()
    problems = figure_checks.figure_problems(fig)
    png = out / f"{output_id}.png"
    fig.savefig(png, dpi=FIGURE_DPI, bbox_inches="tight")
    plotting.pyplot().close(fig)
    with Image.open(png) as image:
        width = figure_css_width(image.width)
        image.resize((width, round(image.height * width / image.width)), Image.Resampling.LANCZOS).save(
            out / f"{output_id}.report.png")
    statuses = ", ".join(f"{c.claim_id}: {c.status}" for c in claims)
    print(f"{output_id}: {png} ({time.process_time() - start:.1f} CPU-s), shown {width} px wide; claims {statuses}")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outputs", nargs="*", help="output IDs (default: every output of the run)")
    parser.add_argument("--results", type=Path, default=Path("results"), help="a finished run's results directory")
    parser.add_argument("--out", type=Path, default=Path("/tmp/redraw"), help="where the PNGs go")
    args = parser.parse_args(argv)
    config = yaml.safe_load((args.results / "run-config.yaml").read_text(encoding="utf-8"))
    args.out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for output_id in args.outputs or list(config["outputs"]):
        for problem in redraw(output_id, config, args.results, args.out):
            print(f"  PROBLEM {output_id}: {problem}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
