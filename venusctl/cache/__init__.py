"""The trajectory cache: a task done once runs again at device speed.
It wraps a run's driver and model from outside; the loop knows nothing of it.

A run that succeeds stores its trajectory (per step: the screen's perceptual
fingerprint, the element at the target, the answer and action in grid coordinates,
the guard's verdict) under a key made of the normalised task, the surface, the app
or site and the screen size. The next run with the same key replays the recorded
answers while its screens match and asks the model from the first step that
differs. Replayed answers go through the parser, the guard and confirmations like
any answer; the step records say `replayed` or `asked`.

  options.py      modes (on, off, read, write), folder, threshold; config and env
  key.py          the key: normalised task, surface, app or site, screen size
  fingerprint.py  perceptual hashes (imagehash) and exact pixel digests
  entry.py        one entry and its versioned, checksummed file format
  store.py        the folder: atomic 0600 files, listing, clearing
  replayer.py     does the recorded answer still apply at this step?
  hooks.py        the driver wrapper, model wrapper and observer a run plugs in
  run.py          `CacheRun`: one run's use of all of the above
"""

from venusctl.cache.options import CacheMode, CacheOptions, resolve_cache
from venusctl.cache.run import CacheRun

__all__ = ["CacheMode", "CacheOptions", "CacheRun", "resolve_cache"]
