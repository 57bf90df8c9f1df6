# loongarch64 gets manylinux tags too (PEP 600, packaging HEAD's _ALLOWED_ARCHS).
target   cuda=cpu python=3.13 platform=manylinux_2_38_loongarch64
file     la/orjson-3.11.0-cp313-cp313-manylinux_2_36_loongarch64.whl
request  orjson==3.11.0
expect   la/orjson-3.11.0-cp313-cp313-manylinux_2_36_loongarch64.whl
