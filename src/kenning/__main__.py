"""``python -m kenning`` is the same as the ``kenning`` command."""

from kenning.cli import main

main()
