"""Cron: scheduled jobs, nightly dreaming and the weekly curator, run by ``kenning daemon``.

``schedule`` parses when a job is due; ``scheduler`` keeps the jobs and runs
them, each job as an agent session opened through the runtime (``kenning.runtime``).
"""
