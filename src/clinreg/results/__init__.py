"""Evaluation results: read HELM, lm-eval and Inspect outputs into one normalised file, and rank models by them."""
