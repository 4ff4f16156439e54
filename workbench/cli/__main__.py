"""``python -m workbench.cli``: the same as the ``workbench`` console script."""

import sys

from . import main

sys.exit(main())
