"""The outputs of Dwork et al. 2015 (Science), Figs. 1-2 as classifier experiments."""
