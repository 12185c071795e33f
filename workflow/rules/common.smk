# Shared helpers for all rules files. Included first (the name sorts before the others).

RESULTS = "results"
# Output IDs whose rules are defined (filled by register_output in each rules file).
IMPLEMENTED_OUTPUTS = []


def register_output(output_id):
    """Declare that a rules file builds the catalogue output ``output_id``."""
    IMPLEMENTED_OUTPUTS.append(output_id)


def output_files(output_id):
    """The four files every catalogue output produces (docs/ARCHITECTURE.md)."""
    return {
        "table": f"{RESULTS}/tables/{output_id}.csv",
        "pdf": f"{RESULTS}/figures/{output_id}.pdf",
        "png": f"{RESULTS}/figures/{output_id}.png",
        "claims": f"{RESULTS}/claims/{output_id}.csv",
    }


def log_file(name):
    return f"{RESULTS}/logs/{name}.log"
