"""Task (1) of BeDiscovER: discourse marker understanding (Just-Manual, Just-Subtitle, Otherwise)."""
