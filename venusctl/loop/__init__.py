"""The agent loop alone: observe, ask, parse, place, gate, act, record, one step at a time.
No command line, no files of settings, no presentation: those sit above it.
"""
