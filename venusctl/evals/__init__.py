"""Measuring the agent: grounding accuracy on ScreenSpot-style datasets (`grounding`),
and success rate, steps and time on suites of offline tasks (`suite`)."""
