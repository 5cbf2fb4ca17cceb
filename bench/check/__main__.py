import sys

from bench.check.cli import main

sys.exit(main())
