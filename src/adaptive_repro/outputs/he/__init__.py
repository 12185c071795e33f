"""The outputs of He et al.: Bayesian differential privacy's composition, generalization and applications."""
