"""The viewer: self-contained HTML reports of runs and sweeps.

Contract: :func:`~silo.view.site.render` turns a run folder or a group of runs into one HTML page
with no external resources; :func:`~silo.view.build.build_site` turns a whole runs folder into
an incremental static site (index, sweep pages with charts, run pages) and
:mod:`~silo.view.serve` serves it on 127.0.0.1 while runs land. Every text from a run is escaped.
"""
