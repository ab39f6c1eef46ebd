"""Model backends behind one seam: `Model.complete(messages, options) -> Completion`.
Settings, files, llama.cpp and servers live here; nothing about drivers or the loop.

Importing this package loads llama.cpp's shared libraries first, before any module
here (or anything else the process imports later) loads numpy: a CUDA build of
llama.cpp crashed offloading layers when numpy's libraries were loaded before its
own (see `venusctl.model.llama.libraries`).
"""

from venusctl.model.llama.libraries import preload as _preload

_preload()
