"""Prompt templates shipped with venusctl (package data: one `.md` file per surface)."""
