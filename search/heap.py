"""Long-lived structures kept out of the cyclic garbage collector's full passes.

A server holds the symbol matcher of every open folder for the whole session: on Django's
56k symbols, some 280,000 objects that the collector tracks. Python runs a full collection
now and then, and each one walked all of them: 108-145 ms in process, which a user saw as one
search or one `workspace/symbol` answer in a few hundred taking 150-280 ms (`make bench`, the
"max" column of every full run). Frozen objects are skipped by every collection, so a full
pass costs what the rest of the heap costs.

Freezing is process-wide, so it has one home, called when a long-lived structure has been
built (`search.symbols.SymbolIndex`). Each call first thaws what an earlier call froze and
collects it, so a structure replaced since (the matcher before a rebuild) is freed, not kept
for ever; refcounting frees the rest as usual.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()


def keep_long_lived() -> None:
    """Collect what is garbage now, then freeze every object that is left. It costs one full
    collection, paid once per build of a long-lived structure instead of at random later."""
    with _lock:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
