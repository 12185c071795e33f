"""Workflow support: the output catalogue, every config check, cost estimates, code dependencies of rules,
job logs, the results comparison and the claims command line (docs/ARCHITECTURE.md, "Layers")."""
