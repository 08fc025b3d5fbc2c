"""What a model's tokens cost, for ``/cost`` and the chat's status line.

Prices are USD per million tokens (input, output, cached input read), the
providers' list prices for their own APIs when this table was written;
matched like the context windows, by the longest prefix of the model name
(any "vendor/" path dropped). A model on this machine costs nothing; a model
not in the table has no price, and the chat says "cost unknown" rather than
guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

from kenning.models.types import Usage


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cached_input: float | None = None  # None: cached tokens cost what other input costs

    def of(self, usage: Usage) -> float:
        cached = min(usage.cache_read_tokens, usage.input_tokens)
        fresh = usage.input_tokens - cached
        cached_rate = self.input if self.cached_input is None else self.cached_input
        total = fresh * self.input + cached * cached_rate + usage.output_tokens * self.output
        return total / 1_000_000


PRICES: dict[str, Price] = {
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "gpt-5-mini": Price(0.25, 2.00, 0.025),
    "gpt-5": Price(1.25, 10.00, 0.125),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1": Price(2.00, 8.00, 0.50),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "o4-mini": Price(1.10, 4.40, 0.275),
    "o3": Price(2.00, 8.00, 0.50),
    "claude-opus-4": Price(15.00, 75.00, 1.50),
    "claude-sonnet-4": Price(3.00, 15.00, 0.30),
    "claude-3-7-sonnet": Price(3.00, 15.00, 0.30),
    "claude-haiku-4": Price(1.00, 5.00, 0.10),
    "claude-3-5-haiku": Price(0.80, 4.00, 0.08),
    "deepseek-chat": Price(0.27, 1.10, 0.07),
    "deepseek-reasoner": Price(0.55, 2.19, 0.14),
}
LOCAL_PROVIDERS = frozenset({"ollama", "llamacpp", "lmstudio", "vllm"})


def price_for(model: str, *, local: bool = False) -> Price | None:
    """The price of ``model`` (free when it runs locally), None when unknown."""
    if local:
        return Price(0.0, 0.0)
    key = model.lower().rsplit("/", 1)[-1]
    for prefix in sorted(PRICES, key=len, reverse=True):
        if key.startswith(prefix):
            return PRICES[prefix]
    return None


def cost_text(usage: Usage, price: Price | None) -> str:
    if price is None:
        return "cost unknown"
    dollars = price.of(usage)
    return "free (local)" if price.input == price.output == 0 else f"${dollars:.4f}"
