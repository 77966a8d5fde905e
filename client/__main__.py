"""``python -m client`` runs the ``olixono`` command."""

import sys

from client.cli import main

sys.exit(main())
