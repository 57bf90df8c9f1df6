# tests/diff/variantlib_ref/shim/platformdirs.py: written for wheelpick's tests (not platformdirs'
# code): variantlib imports platformdirs, which this machine has only as pip's vendored copy.
from pip._vendor.platformdirs import *  # noqa: F401,F403
from pip._vendor.platformdirs import user_config_path, site_config_path  # noqa: F401
