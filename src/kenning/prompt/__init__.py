"""Everything that becomes prompt text: the system prompt (``system``), identity and
standing rules (``rules``, layer 0), and the prompt templates shipped as package
data in ``templates/`` (read with ``template``)."""

from importlib import resources


def template(name: str) -> str:
    """The text of ``templates/<name>`` (package data, so it can be read and edited as prose)."""
    return resources.files(__name__).joinpath("templates", name).read_text(encoding="utf-8")
