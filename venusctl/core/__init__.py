"""The shared vocabulary every layer speaks: actions, the literal reader, the 0..999 grid,
errors with their exit codes, one-line text. Imports nothing else of venusctl.
"""
