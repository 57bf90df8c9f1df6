from __future__ import annotations

__package_name__ = "variantlib"
__version__ = "0.0.3"
