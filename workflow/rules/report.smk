# 4. report: the claims of every output -> results/tables/claims.csv and results/REPRODUCTION.md; the run's resolved
# config -> results/run-config.yaml (what `make report` captions the HTML report with).

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
        code=code_of("adaptive_repro.foundation.registry", "adaptive_repro.pipeline.catalogue"),  # the report and the run header
    output:
        markdown=f"{RESULTS}/REPRODUCTION.md",
        claims=f"{RESULTS}/tables/claims.csv",
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
        code=code_of("adaptive_repro.report.report_html"),
        assets=REPORT_ASSETS,
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
