"""Export: run folders as datasets a trainer loads (``silo-export``).

Contract: :func:`export_runs` writes the rollouts under run, group or sweep folders as ``sft``
rows (``messages`` and ``tools`` in OpenAI chat format, one per rollout) or ``rl`` rows (the
endpoint's exact token ids and logprobs per turn, one trajectory with a loss mask over the
model's own tokens, and a ``group`` key), as JSON Lines or Parquet, filtered by verdict, reward,
agent and task; :func:`export_rows` returns the rows. The same runs give the same bytes. Rows
are rebuilt from the exact-turns ``model_step`` events of each trace
(:mod:`silo.export.turns`). This layer reads what rollouts wrote: it sits above batch (and uses
the integrations' extras check for Parquet), below the CLI.
"""

from silo.export.dataset import FORMATS, KINDS, Filters, export_rows, export_runs

__all__ = ["FORMATS", "KINDS", "Filters", "export_rows", "export_runs"]
