# tests/diff/variantlib_ref/shim/platformdirs.py: written for wheelpick's tests (not platformdirs'
# code): variantlib reads its user and site config folders through platformdirs, which this
# machine has only as pip's vendored copy; without that, two folders that hold no config.
try:
    from pip._vendor.platformdirs import user_config_path, site_config_path  # noqa: F401
except ImportError:  # pragma: no cover
    import os
    import pathlib

    def user_config_path(appname=None, appauthor=None, *args, **kwargs):
        return pathlib.Path(os.environ.get("XDG_CONFIG_HOME", "/nonexistent")) / (appname or "")

    def site_config_path(appname=None, appauthor=None, *args, **kwargs):
        return pathlib.Path("/nonexistent") / (appname or "")
