"""The outputs of Zhao 2017: Bayesian differential privacy on correlated data, Algorithm 1 and the classifier
experiments."""
