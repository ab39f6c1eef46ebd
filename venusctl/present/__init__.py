"""Turning records and screens into pictures and pages: marks on screenshots, terminal
half-block pictures, the HTML report, the timeline. Reads records, never writes them.
"""
