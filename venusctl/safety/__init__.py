"""The runtime gate: decisions about actions that do not depend on the model."""
