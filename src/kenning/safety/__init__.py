"""Safety checks applied to everything that will later enter a model's prompt.

:mod:`.threats` is the API (``threats.scan(text, "memory")``, ``describe``, ``neutralise``) and
the scanning engine; :mod:`.patterns` is the table of threat patterns it runs, and
:mod:`.unicode` finds and strips invisible and bidirectional characters.
"""
