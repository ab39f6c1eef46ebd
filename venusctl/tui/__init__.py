"""The live terminal view (`venusctl do --tui`): the Textual app, its dialogs, and the bridge
to the agent's thread. It observes and steers a run; it does not build one.
"""
