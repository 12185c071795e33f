"""Foundation: named random streams, atomic I/O with digests, record rows, argument domains, config
schemas and digests, the plug-in registry class and the claims registry (docs/ARCHITECTURE.md, "Layers")."""
