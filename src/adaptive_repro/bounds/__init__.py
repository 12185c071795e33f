"""Closed-form bounds of the papers, one function per bound, each citing its source.

Modules: ``he`` (He, Wang, Tao), ``zhao`` (Zhao 2017), ``lecture`` (Lecture 18 notes).
All functions are vectorized over numpy arrays.
"""
