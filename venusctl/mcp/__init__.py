"""`venusctl mcp`: venusctl's tools for Model Context Protocol clients.
Every tool goes through venusctl.api; nothing here drives a surface or a model itself.

`server.py` builds the server on the official `mcp` SDK and declares the tools;
`tools.py` does each tool's work through `venusctl.api` in a worker thread;
`confirm.py` takes the safety gate's questions to the person behind the client
through MCP elicitation, or fails closed when the client cannot ask.
"""
