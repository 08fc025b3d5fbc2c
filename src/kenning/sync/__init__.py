"""Files across machines: ``kenning sync`` merges the home's git repository with a remote.

``engine`` runs a sync (fetch, lock, merge, write, push) and answers ``--status``;
``plan`` decides the merged tree; ``merges`` holds the content merges (hot memory
entry by entry, the journal as a union, the skills' state per record); ``repo``
is the git plumbing.
"""
