"""The learning loop: the agent looks back at its work and keeps what will help next time.

- :mod:`.background` decides *when*: counters on a session's hooks start a
  background review after enough turns or model requests (``install_review``,
  ``review_now`` for ``/review``);
- :mod:`.review` is *one* review: a snapshot of the conversation, a restricted
  agent session (:mod:`.review_tools`), and a landing through :mod:`.staging`
  that puts everything it wrote into the home as one commit, or nothing;
- :mod:`.dream` consolidates the journal and the recall log into MEMORY.md
  under gates, and reports in DREAMS.md.

Cron jobs, nightly dreaming and the weekly curator are run by ``kenning.cron``.
"""

from kenning.learning.background import (
    ReviewRunner,
    install_review,
    review_now,
    runner_for,
    take_notices,
)
from kenning.learning.review import ReviewReport, describe, run_review, summary_line

__all__ = [
    "ReviewReport",
    "ReviewRunner",
    "describe",
    "install_review",
    "review_now",
    "run_review",
    "runner_for",
    "summary_line",
    "take_notices",
]
