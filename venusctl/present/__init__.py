"""Turning records into pages and pictures: terminal half-block pictures, the HTML report,
the timeline. Reads records, never writes them; marks on screenshots live in core.
"""
