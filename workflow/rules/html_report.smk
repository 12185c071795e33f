# The HTML report: `snakemake --report results/report.html` (docs/CLUSTER.md). Figures and tables are marked for
# the report by output_files() in common.smk (caption workflow/report/<ID>.rst, category = paper); this file
# only sets the report's introduction.

report: "../report/workflow.rst"
