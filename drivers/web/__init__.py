"""A Chromium page through Playwright: navigation, input, page descriptions, the request
gate, secret fields and file transfers. The loop sees only the driver seam.
"""
