"""A missing extra is one line naming the extra to install."""

from __future__ import annotations

import pytest

from silo import SiloError
from silo.integrations.extras import require


def test_a_missing_module_names_its_extra() -> None:
    with pytest.raises(SiloError) as missing:
        require("silo_no_such_module_here", "gym", "silo.gym")
    assert missing.value.code == "extra_missing"
    assert missing.value.message == (
        "silo.gym needs the [gym] extra; install it with pip install 'silo-worlds[gym]' "
        "(or pip install -e '.[gym]' in a checkout)"
    )


def test_an_installed_module_passes() -> None:
    require("json", "none", "anything")
