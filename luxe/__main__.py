"""`python -m luxe` is `luxe`."""

import sys

from luxe.cli import main

sys.exit(main())
