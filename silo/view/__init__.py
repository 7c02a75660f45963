"""The viewer: self-contained HTML reports of runs and sweeps.

Contract: :func:`~silo.view.site.render` turns a run folder or a group of runs into one HTML page
with no external resources; every text from a run is escaped.
"""
