"""Safety policies shipped with venusctl (`default.yaml`, `strict.yaml`)."""
