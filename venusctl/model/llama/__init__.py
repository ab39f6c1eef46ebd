"""The in-process backend: llama.cpp through its C API (model, vision projector, sampler,
grammar checks, prefix cache, chat template, logs). Nothing outside model/ imports it directly.
"""
