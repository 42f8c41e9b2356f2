"""``python -m cli.admin``: the same as ``bluemoon-admin``."""

import sys

from cli.admin import main

sys.exit(main())
