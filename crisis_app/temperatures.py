"""The sampling temperatures the free-form family's runs sample at, as conditions."""

TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2)


def condition_name(temperature: float) -> str:
    """t0-0, t0-2, … t1-2: a slug (no dot) that sorts with the temperature."""
    return "t" + f"{temperature:.1f}".replace(".", "-")
