"""Record the run's resolved config (every default filled in) beside its results."""
import yaml

from adaptive_repro.foundation.io import write_text
from adaptive_repro.pipeline.joblog import finished, job_logger

log = job_logger(snakemake.log[0], "run_config")
header = ("# The resolved config of the run that made these results (defaults filled in). `make report` captions the\n"
          "# HTML report with it; rerun the same results with: snakemake --configfile results/run-config.yaml\n")
write_text(header + yaml.safe_dump(dict(snakemake.config), sort_keys=False), snakemake.output[0])
finished(log, f"config digest {snakemake.params.config_digest}")
