"""What the model is sent: the authors' per-surface profile, prompt texts and the conversation
layout. Nothing about how a model runs (model/) or how a screen is read (drivers/).
"""
