"""venusctl: a local command-line GUI agent driven by the UI-Venus-2 model.

The package is a set of small modules joined by plain values: drivers observe and
act, the model answers, the action language parses, the guard decides, the recorder
keeps everything. `venusctl.cli` wires them together for people and scripts.
"""

__version__ = "0.1.0"
