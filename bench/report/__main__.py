import sys

from bench.report.main import main

sys.exit(main())
