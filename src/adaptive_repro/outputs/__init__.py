"""Output layer: one module per paper family turns math and simulation records into tables, figures and claims."""
