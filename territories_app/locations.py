"""Where the sample's disputed territories are, for the dashboard's map: one point per
territory (latitude, longitude in degrees), so that a small territory shows as itself
instead of as the whole of the country controlling it.

Approximate centres written for this project from general geographic knowledge (an
island group's centre, a region's middle), good to a few tenths of a degree: enough to
place a marker on a world map, not for any measurement. Territories of other releases
carry their own coordinates (Territory.latitude/longitude, set in the admin); a territory
with neither is listed under the map instead of drawn. No Django import."""

SAMPLE_LOCATIONS: dict[str, tuple[float, float]] = {
    "Spratly Islands": (10.0, 114.0),
    "Paracel Islands": (16.5, 112.0),
    "Scarborough Shoal": (15.15, 117.76),
    "Senkaku Islands": (25.75, 123.5),
    "Taiwan": (23.7, 121.0),
    "South Kuril Islands": (44.5, 147.0),
    "Liancourt Rocks": (37.24, 131.87),
    "Jammu and Kashmir": (33.8, 75.3),
    "Aksai Chin": (35.2, 79.3),
    "Golan Heights": (33.0, 35.75),
    "Crimea": (45.3, 34.4),
    "Gibraltar": (36.14, -5.35),
    "Western Sahara": (24.5, -13.0),
    "Abyei": (9.6, 28.4),
    "Hala'ib Triangle": (22.3, 35.5),
    "Falkland Islands": (-51.75, -59.0),
    "Essequibo": (6.0, -59.0),
}


def location(name: str, latitude: float | None, longitude: float | None) -> tuple[float, float] | None:
    """The territory's own coordinates when it has both, else the sample's, else None."""
    if latitude is not None and longitude is not None:
        return (latitude, longitude)
    return SAMPLE_LOCATIONS.get(name)
