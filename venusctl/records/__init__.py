"""Run records on disk: one folder per run that survives Ctrl-C, dead devices and crashes.
Writing and reading them back; nothing that draws or prints them.
"""
