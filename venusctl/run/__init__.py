"""Building and running one task from plain options: the run builder, observers, replay,
one-shot actions, grounding on a screen. No typer: the command line sits above it.
"""
