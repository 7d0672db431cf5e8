import sys
from pathlib import Path

# The loopback farm helper (tests/farm) is importable by the tests.
sys.path.insert(0, str(Path(__file__).resolve().parent))
pytest_plugins = ["pytester"]
