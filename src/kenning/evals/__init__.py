"""``kenning eval``: does the learning help? The survey's five verification scenarios.

Each scenario runs in scratch homes (never the user's) against the agent under
test — the scripted reference agent (``--model reference``) or any model the
registry resolves — and reports what the survey asks to measure, with the
requests, tokens and wall time it cost. ``kenning.evals.scenarios`` lists them.
"""
