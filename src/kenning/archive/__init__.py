"""The archive (layer 2b): every session and message in SQLite, found again by search.

``state.db`` in the home is the truth for transcripts and an index for the
memory files. It runs in WAL mode so readers never block the writer, and its
schema changes only through the ordered migrations in
``kenning.storage.sqlite.migrations``; every read and write goes through
``kenning.storage``.
"""
