# Ordered comparisons on a String field: > and < are False, >= and <= are == (dependency
# specifiers, revised 2026-01-10); Python's string order would have pulled in both.
target   cuda=cpu python=3.10 platform=manylinux_2_28_x86_64
file     a-1.0-py3-none-any.whl
file     gt-1.0-py3-none-any.whl
file     ge-1.0-py3-none-any.whl
dep      a-1.0-py3-none-any.whl gt; os_name > "a"
dep      a-1.0-py3-none-any.whl ge; os_name >= "posix"
request  a
expect   a-1.0-py3-none-any.whl
expect   ge-1.0-py3-none-any.whl
