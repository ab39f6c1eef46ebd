"""`venusctl batch`: task files, the surfaces and models a batch shares, checks, results.
One task runs through run/ like any other; nothing here is needed by a single run.
"""
