"""The indexing runtime: threads, queues and folder state; see `runtime.py`."""

from indexing.runtime.folder_index import FolderIndex, shared_embedder
from indexing.runtime.folders import Folder, Unopened
from indexing.runtime.listener import Listener, ProgressSink, SilentListener
from indexing.runtime.runtime import Runtime

__all__ = ["Folder", "FolderIndex", "Listener", "ProgressSink", "Runtime", "SilentListener",
           "Unopened", "shared_embedder"]
