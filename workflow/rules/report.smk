# 4. report: the claims of every output -> results/tables/claims.csv and results/REPRODUCTION.md; the run's resolved
# config -> results/run-config.yaml (what `make report` captions the HTML report with).

report: "../report/workflow.rst"


rule run_config:
    output:
        f"{RESULTS}/run-config.yaml",
    log:
        log_file("run_config"),
    params:
        config_digest=digest(config),  # the script writes snakemake.config (the resolved config)
    group:
        "post"
    conda:
        "../../environment.yml"
    script:
        "../scripts/run_config.py"


rule reproduction_report:
    input:
        claims=[output_files(oid)["claims"] for oid in OUTPUTS],
        tables=[output_files(oid)["table"] for oid in OUTPUTS],
        run_config=f"{RESULTS}/run-config.yaml",
        code=code_of("adaptive_repro.registry", "adaptive_repro.config"),  # the report and the run header
    output:
        markdown=report(f"{RESULTS}/REPRODUCTION.md", caption="../report/claims.rst",
                        category="Claims", subcategory="registry",
                        labels={"output": "claims", "file": "REPRODUCTION.md"}),
        claims=report(f"{RESULTS}/tables/claims.csv", caption="../report/claims.rst",
                      category="Claims", subcategory="registry",
                      labels={"output": "claims", "file": "table (CSV)"}),
    log:
        log_file("reproduction_report"),
    params:
        outputs={oid: output_files(oid) for oid in OUTPUTS},
    group:
        "post"
    conda:
        "../../environment.yml"
    script:
        "../scripts/reproduction_report.py"


rule html_report:
    input:
        markdown=f"{RESULTS}/REPRODUCTION.md",
        claims=[output_files(oid)["claims"] for oid in OUTPUTS],
        tables=[output_files(oid)["table"] for oid in OUTPUTS],
        figures=[output_files(oid)["png"] for oid in OUTPUTS],
        captions=[os.path.relpath(report_caption(oid)) for oid in OUTPUTS],  # relative: a moved checkout reruns nothing
        code=code_of("adaptive_repro.report_html"),
    output:
        f"{RESULTS}/report.html",
    log:
        log_file("html_report"),
    threads: 2  # the figures' thumbnails in parallel: the pipeline's last job, alone on the machine
    params:
        outputs={oid: output_files(oid) for oid in OUTPUTS},
        config_digest=digest(config),  # captions show the run's parameters (snakemake.config)
    group:
        "post"
    conda:
        "../../environment.yml"
    script:
        "../scripts/html_report.py"


# At the end of a successful run whose targets include the report (the default target, rule all, or the report
# itself, as `make report` asks), one line says where to read the results (Snakemake's "Complete log(s)" and
# "Elapsed time" follow). Runs of other named targets, and runs cut short by --until or --omit-from, print nothing
# more; Snakemake calls no handler when there was nothing to do.
onsuccess:
    _report, _registry = rules.html_report.output[0], rules.reproduction_report.output.markdown
    _targets = {os.path.normpath(t) for t in workflow.dag_settings.targets}
    _cut_short = workflow.dag_settings.until or workflow.dag_settings.omit_from
    if (not _targets or "all" in _targets or _report in _targets) and not _cut_short and os.path.exists(_report):
        print(f"Results: {_report} (every output's figure, table and claims), {_registry} (the claims registry).",
              file=sys.stderr)
