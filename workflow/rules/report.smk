# The claims registry of every output of this run -> results/tables/claims.csv and results/REPRODUCTION.md.


rule reproduction_report:
    input:
        claims=[output_files(oid)["claims"] for oid in config["outputs"]],
        tables=[output_files(oid)["table"] for oid in config["outputs"]],
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
        outputs={oid: output_files(oid) for oid in config["outputs"]},
        config=config,
    script:
        "../scripts/reproduction_report.py"
