"""Model files: finding and downloading them on the hub, reading a GGUF header, `model pull
| list | info`. No inference here.
"""
