"""The shared vocabulary every layer speaks: actions, the literal reader, the 0..999 grid,
errors with exit codes, one-line text, marks on screenshots. Imports nothing else of venusctl.
"""
