"""What readers see: the shared figure style and its checks, and the run's HTML report
(docs/ARCHITECTURE.md, "Layers")."""
