# A Requires-Dist that is not PEP 508 makes the file's metadata invalid: pip (24.1 on) refuses it
# and ignores that version, and so does the solver: the older version is taken, and says why.
target   cuda=cpu python=3.10 platform=manylinux_2_28_x86_64
file     a-2.0-py3-none-any.whl
file     a-1.0-py3-none-any.whl
file     b-1.0-py3-none-any.whl
dep      a-2.0-py3-none-any.whl b (>=1
dep      a-1.0-py3-none-any.whl b>=1
request  a
expect   a-1.0-py3-none-any.whl
expect   b-1.0-py3-none-any.whl
reason   a newer versions were given up: 2.0 (its metadata has an unreadable Requires-Dist)
