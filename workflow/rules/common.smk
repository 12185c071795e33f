# Shared helpers for all rules files. Included first (the name sorts before the others).

RESULTS = "results"
# Output IDs whose rules are defined (filled by register_output in each rules file).
IMPLEMENTED_OUTPUTS = []


def register_output(output_id):
    """Declare that a rules file builds the catalogue output ``output_id``."""
    IMPLEMENTED_OUTPUTS.append(output_id)


# Report (snakemake --report): each catalogue output's figure and table, with the caption
# workflow/report/<ID>.rst, in the category of its paper (from the ID prefix) and a subcategory per ID.
REPORT_DIR = os.path.join(workflow.basedir, "workflow", "report")
REPORT_CATEGORIES = {"dwork": "Dwork2015", "zhao": "Zhao", "he": "He", "lecture": "Lecture"}


def report_category(output_id):
    """The report category (paper) of a catalogue ID, from its prefix: dwork-null -> Dwork2015."""
    return REPORT_CATEGORIES.get(output_id.split("-", 1)[0], "Other")


def report_caption(output_id):
    """Caption file of an output: workflow/report/<ID>.rst (tests/test_report.py checks that it exists)."""
    return os.path.join(REPORT_DIR, f"{output_id}.rst")


def _wildcard_caption(pattern):
    """A caption for an output pattern with wildcards, e.g. "{experiment}".

    Snakemake does not expand wildcards in caption paths (snakemake issue #235), so this writes a caption
    whose Jinja template picks the text of workflow/report/<ID>.rst by the job's wildcards. Written into
    .snakemake/report-captions/ (atomic replace) each time the workflow is parsed, so it follows the captions.
    """
    import glob, hashlib, re, tempfile

    parts = re.split(r"\{(\w+)(?:,[^}]*)?\}", pattern)
    # parts alternates literal, wildcard name, literal, ...: build the Jinja expression of the ID
    expr = " ~ ".join(repr(p) if i % 2 == 0 else f"snakemake.wildcards[{p!r}]"
                      for i, p in enumerate(parts) if p or i % 2)
    branches = []
    for caption in sorted(glob.glob(os.path.join(REPORT_DIR, "*.rst"))):
        oid = os.path.basename(caption)[:-len(".rst")]
        if oid == "workflow":
            continue
        with open(caption) as f:
            branches.append(f"{{% {'if' if not branches else 'elif'} output_id == {oid!r} %}}\n{f.read().rstrip()}\n")
    text = f"{{% set output_id = {expr} %}}\n" + "".join(branches)
    text += ("{% else %}\n" if branches else "") + "No caption: workflow/report/{{ output_id }}.rst is missing.\n"
    text += "{% endif %}\n" if branches else ""
    out_dir = os.path.abspath(os.path.join(".snakemake", "report-captions"))
    path = os.path.join(out_dir, hashlib.sha1(pattern.encode()).hexdigest()[:12] + ".rst")
    try:
        os.makedirs(out_dir, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=out_dir, suffix=".tmp", delete=False) as f:
            f.write(text)
        os.replace(f.name, path)
    except OSError:  # read-only working directory: only the report needs the caption
        pass
    return path


def output_files(output_id):
    """The four files every catalogue output produces (docs/ARCHITECTURE.md).

    ``output_id`` is a catalogue ID or a pattern with wildcards ("{experiment}"). All four are
    marked for the HTML report (``report(...)``: caption, category = paper, subcategory = ID); the values are
    still plain path strings for ``output:``, ``input:`` and ``params:``.
    """
    if "{" in output_id:
        from snakemake.io import apply_wildcards

        caption = _wildcard_caption(output_id)
        category = lambda wildcards: report_category(apply_wildcards(output_id, wildcards))
        subcategory = output_id
    else:
        caption, category, subcategory = report_caption(output_id), report_category(output_id), output_id

    def for_report(path, kind):
        return report(path, caption=caption, category=category, subcategory=subcategory,
                      labels={"output": output_id, "file": kind})

    return {
        "table": for_report(f"{RESULTS}/tables/{output_id}.csv", "table (CSV)"),
        "pdf": for_report(f"{RESULTS}/figures/{output_id}.pdf", "figure (PDF)"),
        "png": for_report(f"{RESULTS}/figures/{output_id}.png", "figure (PNG)"),
        "claims": for_report(f"{RESULTS}/claims/{output_id}.csv", "claims (CSV)"),
    }


def log_file(name):
    return f"{RESULTS}/logs/{name}.log"
