"""Territorial disputes (BorderLines, paper 003): concurrence scores of language models."""
