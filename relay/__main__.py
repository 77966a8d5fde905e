"""``python -m relay ...`` is ``olixono relay ...``."""

import sys

from relay.cli import main

sys.exit(main())
