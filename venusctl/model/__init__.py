"""Model backends behind one seam: `Model.complete(messages, options) -> Completion`."""
