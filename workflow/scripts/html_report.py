"""Write results/report.html: REPRODUCTION.md's summary, then every output's caption, figure, claims and table
(adaptive_repro.report.report_html)."""
import os
from pathlib import Path

from adaptive_repro.foundation.io import write_text
from adaptive_repro.pipeline.catalogue import output_params
from adaptive_repro.pipeline.joblog import finished, job_logger
from adaptive_repro.report.report_html import OutputFiles, render_report

log = job_logger(snakemake.log[0], "html_report")
report_dir = os.path.dirname(snakemake.output[0])
LABELS = {"png": "figure (PNG)", "pdf": "figure (PDF)", "table": "table (CSV)", "claims": "claims (CSV)"}
sections = []
for caption, (oid, files) in zip(snakemake.input.captions, snakemake.params.outputs.items()):
    links = {label: os.path.relpath(files[key], report_dir) for key, label in LABELS.items()}
    sections.append(OutputFiles(oid, caption_template=Path(caption), table=files["table"], claims=files["claims"],
                                png=files["png"], links=links,
                                params=output_params(snakemake.config, oid)))
with open(snakemake.input.markdown, encoding="utf-8") as f:
    page = render_report(f.read(), sections, snakemake.config, threads=snakemake.threads)
write_text(page, snakemake.output[0])
finished(log, f"{len(sections)} outputs, {len(page.encode()) / 1e6:.1f} MB -> {snakemake.output[0]}")
